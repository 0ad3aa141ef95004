import type { Container } from '../../../shared/schemas/container';
import { UPDATE_SEQUENCE_PHASES } from '../../../shared/schemas/ui-events';
import { containerIdentity } from '../../../shared/update/update-clock';
import { HttpError } from '../http/http-error';
import { SWARM_UPDATE_PHASES } from '../swarm/swarm-update';
import type { DockerActionTrigger } from './action-triggers';
import { assertAgentReachable } from './agent-update-runner';
import { assertUpdateModeAllows } from './auto-update-policy';
import { lifelineReason, lifelineRefusal } from './lifeline-guard';
import { swarmWatcherOf } from './swarm-update-job';
import {
  agentLifeline,
  assertLocal,
  assertMature,
  assertNotBusy,
  findUpdatable,
  resolveTrigger,
} from './update-checks';
import type { UpdateContext } from './update-context';
import { currentReference, updateTargetOf } from './update-target';

/**
 * A blocker of the update. `manual` ones refuse a request now (with `status`, the answer
 * `POST /containers/{id}/update` would give); `auto` ones (snooze, skips) only hold automatic updates.
 */
export interface PreviewBlocker {
  reason: string;
  message: string;
  applies: 'manual' | 'auto';
  status?: number;
  details?: Record<string, unknown>;
}

export interface UpdatePreview {
  containerId: string;
  containerName: string;
  watcher: string;
  agent?: string;
  current: { image: string; tag: string; digest: string | null; imageId: string };
  target: { image: string; tag: string; digest: string | null } | null;
  updateKind: Container['updateKind'];
  triggerName: string | null;
  /** The phases of http-interface §2.6 a successful run passes; `health-gate*` only when the new image has a healthcheck. */
  phases: string[];
  backup: { made: boolean; imageReference: string; imageId: string; keep: number; wouldDrop: string[] } | null;
  pruneOldImage: boolean;
  blockers: PreviewBlocker[];
  /** True when `POST /containers/{id}/update` would queue an operation now. */
  canUpdate: boolean;
}

/** Runs a check; an HttpError becomes a blocker, anything else is a real failure. */
function check<T>(blockers: PreviewBlocker[], run: () => T): T | undefined {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const { reason, ...rest } = error.details ?? {};
    blockers.push({
      reason: typeof reason === 'string' ? reason : `http-${error.status}`,
      message: error.message,
      applies: 'manual',
      status: error.status,
      ...(Object.keys(rest).length > 0 && { details: rest }),
    });
    return undefined;
  }
}

function backupOf(
  context: UpdateContext,
  container: Container,
  trigger: DockerActionTrigger | undefined,
): UpdatePreview['backup'] {
  if (!trigger) return null;
  const kept = context.backups.ofIdentity(containerIdentity(container));
  // The new backup is added first, then the newest `keep` stay: these would go.
  const wouldDrop = kept.slice(Math.max(trigger.backupCount - 1, 0)).map((backup) => backup.id);
  return {
    made: trigger.backupCount > 0,
    imageReference: currentReference(container),
    imageId: container.image.id,
    keep: trigger.backupCount,
    wouldDrop,
  };
}

/**
 * What `POST /containers/{id}/update` would do now (http-interface §4.8 preview), by the same checks, reading
 * only: no claim, no journal write, no Docker call. 404 for an unknown container only.
 */
export function previewUpdate(context: UpdateContext, containerId: string): UpdatePreview {
  const container = context.hub.containers.get(containerId);
  if (!container) throw new HttpError(404, `Unknown container ${containerId.slice(0, 80)}`);
  const blockers: PreviewBlocker[] = [];
  check(blockers, () => findUpdatable(context, containerId));
  check(blockers, () => assertUpdateModeAllows(context.hub.settings.get().updateMode, 'api'));
  const trigger = check(blockers, () => resolveTrigger(context, container));
  const target = updateTargetOf(container);
  if (!target) {
    blockers.push({
      reason: 'no-update-available',
      message: `No update is available for ${container.name}`,
      applies: 'manual',
      status: 400,
    });
  }
  check(blockers, () => assertMature(container));
  check(blockers, () => {
    const blocked = target && context.hub.security?.assess(container, target);
    if (blocked) throw blocked;
  });
  check(blockers, () => {
    const waiting = target && context.hub.approvals?.assess(container, target);
    if (waiting) throw waiting;
  });
  check(blockers, () => assertNotBusy(context, container));
  // The hub's own container (or an agent's, and its proxy by name); the local proxy check reads Docker, so only the update request makes it.
  const self =
    container.agent === undefined
      ? context.hub.selfUpdates?.applies(container.id)
        ? undefined // a self-update (docs/updates.md "Self-update")
        : lifelineReason(container, undefined, undefined, { containerId: context.hub.selfContainerId, runs: 'the hub' })
      : agentLifeline(context, container);
  check(blockers, () => {
    if (self !== undefined) throw lifelineRefusal(self);
  });
  // The same reachability check as requestUpdate: the local watcher's host, or the edge agent's session.
  // A swarm service (swarm-update-job.ts) goes through its manager, without a backup of the hub's.
  const swarm = container.agent === undefined ? swarmWatcherOf(context, container.watcher) : undefined;
  check(blockers, () =>
    container.agent !== undefined
      ? assertAgentReachable(context, container)
      : (swarm ?? assertLocal(context, container)),
  );
  for (const held of container.blockers ?? []) {
    if (held.reason === 'maturity-not-reached') continue;
    blockers.push({
      reason: held.reason,
      message: `Automatic updates are held (${held.reason})`,
      applies: 'auto',
      ...(held.liftableAt !== undefined && { details: { liftableAt: held.liftableAt } }),
    });
  }
  const kind = container.updateKind;
  return {
    containerId: container.id,
    containerName: container.name,
    watcher: container.watcher,
    ...(container.agent !== undefined && { agent: container.agent }),
    current: {
      image: currentReference(container),
      tag: container.image.tag.value,
      digest: container.image.digest.value ?? null,
      imageId: container.image.id,
    },
    target: target
      ? {
          image: target.targetImage,
          tag: kind.kind === 'tag' ? kind.remoteValue : container.image.tag.value,
          digest: kind.kind === 'digest' ? kind.remoteValue : (container.result?.digest ?? null),
        }
      : null,
    updateKind: kind,
    triggerName: trigger?.id ?? null,
    phases: swarm ? [...SWARM_UPDATE_PHASES] : [...UPDATE_SEQUENCE_PHASES],
    backup: swarm ? null : backupOf(context, container, trigger),
    pruneOldImage: trigger?.prune ?? false,
    blockers,
    canUpdate: !blockers.some((blocker) => blocker.applies === 'manual'),
    // Beyond the spec: the vulnerabilities the update fixes and introduces, once its candidate was scanned.
    ...(() => {
      const delta = target && context.hub.security?.delta(container, target);
      return delta ? { security: delta } : {};
    })(),
  };
}
