import { actingLabels } from '../../../shared/containers/label-overrides';
import type { UpdatableDockerHost } from '../../../shared/docker/docker-host';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { TEMPORARY_NAME } from '../../../shared/update-engine';
import { HttpError } from '../http/http-error';
import { actionAllowed } from './action-routing';
import { type DockerActionTrigger, triggerCoversWatcher } from './action-triggers';
import { lifelineReason, lifelineRefusal, tcpEndpointOf } from './lifeline-guard';
import { type UpdateContext, updatableWatcher } from './update-context';

/**
 * The checks every update or rollback request passes before anything is queued (http-interface §4.8), each
 * answering its own status: 403 actions disabled, 404 container or action trigger missing, 409
 * excluded by labels, already queued or running, or a temporary rollback container.
 */
export function findUpdatable(context: UpdateContext, containerId: string): Container {
  const hub = context.hub;
  const container = hub.containers.get(containerId);
  if (!container) throw new HttpError(404, `Unknown container ${containerId.slice(0, 80)}`);
  // An image that a file names (docs/sources.md) runs nowhere: the file is what changes.
  const source = container.agent === undefined ? hub.fleet.find(container.watcher, undefined) : undefined;
  // A Swarm service is updated by ServiceUpdate on its manager (swarm-update-job.ts).
  if (source && source.type !== 'docker' && source.type !== 'swarm' && source.type !== 'podman') {
    throw new HttpError(
      409,
      `${container.name} is an image reference of ${source.id}, which has no update action: change the file itself`,
      { reason: 'file-source', watcher: source.id },
    );
  }
  if (!hub.config.server.featureContainerActions) {
    throw new HttpError(403, 'Container actions are disabled (DD_SERVER_FEATURE_CONTAINERACTIONS=false)', {
      feature: 'DD_SERVER_FEATURE_CONTAINERACTIONS',
    });
  }
  // Mid-update the old container carries its temporary name; it is the update in progress that
  // refuses the request, which says more than "a temporary container".
  const running = context.store.unsettled().find((operation) => operation.containerId === container.id);
  if (running) throw busyError(running.containerName, running.status, running.id);
  if (TEMPORARY_NAME.test(container.name)) {
    throw new HttpError(
      409,
      `${container.name} is a temporary rollback container of an update; it is not updated itself`,
      {
        reason: 'rollback-container',
      },
    );
  }
  return container;
}

/** The trigger named (by id `docker.x` or name `x`), else the first of the container's watcher that its labels allow. */
export function resolveTrigger(context: UpdateContext, container: Container, name?: string): DockerActionTrigger {
  const candidates = context.triggers.filter((trigger) => triggerCoversWatcher(trigger, container.watcher));
  const named =
    name === undefined ? candidates : candidates.filter((trigger) => trigger.id === name || trigger.name === name);
  if (named.length === 0) {
    throw new HttpError(
      404,
      `No Docker action trigger${name === undefined ? '' : ` ${name.slice(0, 80)}`} is configured for the watcher ${container.watcher}`,
      {
        watcher: container.watcher,
        reason: 'no-action-trigger',
      },
    );
  }
  const allowed = named.find((trigger) => actionAllowed(actingLabels(container), trigger));
  if (!allowed) {
    throw new HttpError(
      409,
      'The dd.action.include / dd.action.exclude labels of this container keep the Docker action from it',
      {
        reason: 'excluded-by-labels',
        triggers: named.map((trigger) => trigger.id),
      },
    );
  }
  return allowed;
}

/** 409 while an operation of this container (by identity: it outlives the id) is queued or running. */
export function assertNotBusy(context: UpdateContext, container: Container): string {
  const identity = containerIdentity(container);
  const holder = context.claims.get(identity);
  if (holder !== undefined) {
    throw busyError(container.name, context.store.get(holder)?.status, holder);
  }
  return identity;
}

/** A local container's watcher, able to update; agents' containers go through assertAgentReachable instead. */
export function assertLocal(context: UpdateContext, container: Container) {
  const reached = updatableWatcher(context, container.watcher);
  if (!reached)
    throw new HttpError(503, `The watcher ${container.watcher} is not available`, { watcher: container.watcher });
  return reached;
}

/**
 * 409 for the container the update's runner lives in (the hub, or the edge agent of an agent's
 * container), or the proxy it reaches that Docker through (lifeline-guard.ts). `host` is the local
 * watcher's (undefined for an agent's container).
 */
export async function assertNotLifeline(
  context: UpdateContext,
  container: Container,
  host: UpdatableDockerHost | undefined,
): Promise<void> {
  const reason = host ? await localLifeline(context, container, host) : agentLifeline(context, container);
  if (reason !== undefined) throw lifelineRefusal(reason);
}

async function localLifeline(
  context: UpdateContext,
  container: Container,
  host: UpdatableDockerHost,
): Promise<string | undefined> {
  const hub = context.hub;
  const endpoint = hub.config.watchers.find((watcher) => watcher.name === container.watcher)?.endpoint;
  // Only a TCP endpoint can be served by a container of this host; its configuration says whether this one does.
  const spec = endpoint && !('socketPath' in endpoint) ? await host.inspectContainerSpec(container.id) : undefined;
  return lifelineReason(container, spec, endpoint, { containerId: hub.selfContainerId, runs: 'the hub' });
}

/** From what the agent said at sign-in: the container it runs in, and its watcher's endpoint (names only: no configuration is at hand). */
export function agentLifeline(context: UpdateContext, container: Container): string | undefined {
  if (container.agent === undefined) return undefined;
  const details = context.hub.agentDescriptions.get(container.agent);
  if (!details) return undefined;
  const shown = details.watchers.find((watcher) => watcher.name === container.watcher)?.endpoint;
  return lifelineReason(container, undefined, shown === undefined ? undefined : tcpEndpointOf(shown), {
    containerId: details.info.containerId,
    runs: `the edge agent ${container.agent}`,
  });
}

/** http-interface §3.3: a manual request is refused while the maturity gate holds the update. */
export function assertMature(container: Container): void {
  const held = container.blockers?.find((blocker) => blocker.reason === 'maturity-not-reached');
  if (held) {
    throw new HttpError(409, 'The maturity gate holds this update', {
      reason: 'maturity-not-reached',
      ...(held.liftableAt !== undefined && { liftableAt: held.liftableAt }),
    });
  }
}

/** The 409 of http-interface §4.8 for a container whose update is queued or running. */
function busyError(name: string, status: string | undefined, operationId: string): HttpError {
  const queued = status === 'queued';
  return new HttpError(409, `An update of ${name} is already ${queued ? 'queued' : 'in progress'}`, {
    reason: queued ? 'queued' : 'in-progress',
    operationId,
  });
}
