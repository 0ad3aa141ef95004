import type { Context } from 'hono';
import { readContainerLabels } from '../../../shared/containers/container-labels';
import { relabelRecord } from '../../../shared/containers/container-record';
import { labelMapProblems } from '../../../shared/containers/label-override-problems';
import { type LabelMap, mergeLabelOverrides } from '../../../shared/containers/label-overrides';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { updateBlockers } from '../../../shared/update/snooze-skip';
import { containerIdentity } from '../../../shared/update/update-clock';
import { pendingUpdateOf } from '../../../shared/update/update-kind';
import { assertMayOverrideApprovalLabel } from '../approvals/approval-label-guard';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { LabelOverrideStore } from '../store/label-override-store';
import { effectivePolicy } from '../watchers/container-check';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { toPublicContainer } from '../watchers/public-container';
import type { ContainerHosts } from './container-target';

export interface LabelOverrideRoutesDeps extends ContainerHosts {
  containers: Pick<ContainerStore, 'all' | 'get' | 'putMany' | 'identityState'>;
  /** DD_APPROVALS_SEPARATE: overriding dd.update.approval needs admin (docs/approvals.md). */
  approvalLabelNeedsAdmin?: boolean | undefined;
  labelOverrides: LabelOverrideStore;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  now: () => number;
  logger: Logger;
}

export const identityOf = (container: Container) => containerIdentity(container);

/** A bad value is refused with its key named (400), read by the parsers the labels go through. */
export function assertValidOverride(labels: LabelMap): void {
  const problems = labelMapProblems(labels);
  if (problems.length === 0) return;
  const first = problems[0] as string;
  // Values are echoed in the problems (a regex, a reference): clipped, as ids from the URL are.
  throw new HttpError(400, `Invalid label override: ${first.slice(0, 300)}`, {
    label: first.split(/[ :]/, 1)[0],
    problems: problems.map((problem) => problem.slice(0, 300)),
  });
}

/** The labels as the audit entry lists them. */
export const listedLabels = (labels: LabelMap) =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ')
    .slice(0, 500);

/**
 * What every label-override change does once stored: the containers it touches are re-read from
 * their labels and overrides, stored, announced, and checked against their registry when watched.
 */
export function createLabelOverrideChanges(deps: LabelOverrideRoutesDeps) {
  const { containers, labelOverrides } = deps;

  /** One record with its labels re-read under the overrides now in force (nothing stored yet). */
  function relabel(container: Container): Container {
    const identity = identityOf(container);
    const merged = mergeLabelOverrides(container.labels, labelOverrides.resolve(identity, container));
    const labels = readContainerLabels(merged.labels);
    const watchByDefault = deps.fleet.ownerOf(container)?.watchByDefault ?? true;
    const relabelled = relabelRecord(container, labels, merged.sources, watchByDefault);
    const state = containers.identityState(identity);
    const policy = effectivePolicy(labels.labelPolicy, state.policy ?? {});
    const blockers = relabelled.watched
      ? updateBlockers({ policy, update: pendingUpdateOf(relabelled.updateKind), gate: state.gate, now: deps.now() })
      : [];
    const { blockers: _old, ...rest } = relabelled;
    return { ...rest, updatePolicy: policy, ...(blockers.length > 0 && { blockers }) };
  }

  /**
   * Tag rules, lookup image or dd.watch may have changed what the registry has to say: the watched
   * ones are checked now, one observation per watcher, where the host is reachable; elsewhere the
   * next watch cycle does it.
   */
  async function recheck(updated: readonly Container[]): Promise<void> {
    const byWatcher = new Map<DockerWatcher, string[]>();
    for (const container of updated) {
      const watcher = deps.fleet.ownerOf(container);
      const reachable = container.agent === undefined || deps.agents.isConnected(container.agent);
      if (!container.watched || !watcher || !reachable) continue;
      byWatcher.set(watcher, [...(byWatcher.get(watcher) ?? []), container.id]);
    }
    await Promise.all(
      [...byWatcher].map(([watcher, ids]) =>
        watcher.watchContainers(ids).catch((error: unknown) =>
          deps.logger.warn('label override: re-check failed; the next watch cycle applies it', {
            watcher: watcher.id,
            error: errorMessage(error),
          }),
        ),
      ),
    );
  }

  /**
   * The containers selected, re-read, stored in one batch (one transaction on Workers, however many
   * a selector matches) and announced, then re-checked.
   */
  async function reapply(selected: (container: Container) => boolean): Promise<void> {
    const updated = containers.all().filter(selected).map(relabel);
    await containers.putMany(updated);
    for (const container of updated) deps.publish('dd:container-updated', toPublicContainer(container));
    await recheck(updated);
  }

  async function reapplyOne(container: Container): Promise<Container> {
    await reapply((candidate) => candidate.id === container.id);
    return containers.get(container.id) ?? container;
  }

  return {
    reapply,
    reapplyOne,
    /** 403 when the change touches dd.update.approval without admin while DD_APPROVALS_SEPARATE is on. */
    assertMayChange: (c: Context<HubEnv>, before: LabelMap | undefined, after: LabelMap) =>
      assertMayOverrideApprovalLabel(deps.approvalLabelNeedsAdmin === true, c.get('principal'), before, after),
  };
}

export type LabelOverrideChanges = ReturnType<typeof createLabelOverrideChanges>;
