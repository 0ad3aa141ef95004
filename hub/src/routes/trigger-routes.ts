import type { Context } from 'hono';
import * as v from 'valibot';
import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Container } from '../../../shared/schemas/container';
import { TriggerSchema } from '../../../shared/schemas/notification-views';
import { LOCAL_AGENT } from '../../../shared/update/update-clock';
import { actorOf } from '../approvals/approval-actors';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import type { RouteGroup } from '../http/route-group';
import { routeContainer } from '../notifications/container-routing';
import type { NotificationService } from '../notifications/notification-service';
import { describeTrigger, type NotificationTrigger } from '../notifications/notification-triggers';
import { containerFromBody, SimulatedContainerBodySchema } from '../notifications/simulated-container';
import type { ContainerStore } from '../store/container-store';
import { actionAllowed } from '../updates/action-routing';
import { describeActionTrigger, triggerCoversWatcher } from '../updates/action-triggers';
import type { UpdateService } from '../updates/update-service';
import { findContainer } from './container-target';

const RunResultSchema = v.object({ triggerId: v.string(), containerId: v.string(), delivered: v.literal(true) });

/** The configured triggers, which a container's labels route: notification triggers and Docker action triggers. */
export interface TriggersOfContainerDeps {
  notifications: Pick<NotificationService, 'triggers'>;
  updates: Pick<UpdateService, 'triggers'>;
}

/** The notification triggers that apply to a container: all of them, less what its dd.notification.* labels route away. */
export function triggersOfContainer(
  deps: Pick<TriggersOfContainerDeps, 'notifications'>,
  container: Container,
): NotificationTrigger[] {
  return deps.notifications.triggers.filter((trigger) => routeContainer(actingLabels(container), trigger).allowed);
}

/**
 * The trigger records of a container (http-interface §4.8): first the Docker action triggers that can
 * update it (of its watcher, allowed by its dd.action.* labels), then its notification triggers.
 * Action triggers come first because clients of What's Up Docker (the Home Assistant card) offer the
 * first trigger as the container's Update button; running it for the container updates it.
 */
export function describeTriggersOfContainer(deps: TriggersOfContainerDeps, container: Container) {
  const actions = deps.updates.triggers.filter(
    (trigger) => triggerCoversWatcher(trigger, container.watcher) && actionAllowed(actingLabels(container), trigger),
  );
  return [...actions.map(describeActionTrigger), ...triggersOfContainer(deps, container).map(describeTrigger)];
}

/** The trigger routes: notification triggers (listed and run now), action triggers (listed), and the containers they run for. */
export interface TriggerRoutesDeps {
  notifications: Pick<NotificationService, 'triggers' | 'trigger' | 'runTrigger'>;
  updates: Pick<UpdateService, 'triggers' | 'requestUpdate'>;
  containers: Pick<ContainerStore, 'get'>;
  now: () => number;
}

export function registerTriggerRoutes(api: RouteGroup, deps: TriggerRoutesDeps): void {
  const find = (c: Context<HubEnv>): NotificationTrigger => {
    const type = c.req.param('type') ?? '';
    const name = c.req.param('name') ?? '';
    const trigger = deps.notifications.trigger(`${type}.${name}`);
    if (!trigger) throw new HttpError(404, `Unknown trigger ${type.slice(0, 40)}.${name.slice(0, 80)}`);
    return trigger;
  };

  /** Delivers now through the outbox; a failure answers 502 and the entry stays in the outbox for its retries. */
  const run = async (c: Context<HubEnv>, trigger: NotificationTrigger, container: Container) => {
    const outcome = await deps.notifications.runTrigger(trigger, container);
    if (!outcome.delivered) {
      throw new HttpError(
        502,
        `The trigger ${trigger.id} could not deliver: ${outcome.entry.lastError ?? 'unknown error'}`,
        {
          triggerId: trigger.id,
          outboxId: outcome.entry.id,
          status: outcome.entry.status,
        },
      );
    }
    return c.json({ triggerId: trigger.id, containerId: container.id, delivered: true as const });
  };

  api.add(
    {
      method: 'get',
      path: '/triggers',
      access: 'read',
      tag: 'triggers',
      summary: 'Configured triggers, configuration masked',
      response: v.object({ data: v.array(TriggerSchema), total: v.number() }),
    },
    (c) => {
      // Notification triggers, then the action triggers (DD_ACTION_*) that update containers.
      const data = [
        ...deps.notifications.triggers.map(describeTrigger),
        ...deps.updates.triggers.map(describeActionTrigger),
      ];
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/triggers/:type/:name',
      access: 'read',
      tag: 'triggers',
      summary: 'One trigger, configuration masked',
      response: TriggerSchema,
      statuses: { 404: 'Unknown trigger' },
    },
    (c) => {
      const action = deps.updates.triggers.find(
        (trigger) => trigger.id === `${c.req.param('type')}.${c.req.param('name')}`,
      );
      return c.json(action ? describeActionTrigger(action) : describeTrigger(find(c)));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/triggers/:type/:name',
      access: 'triggers:run',
      tag: 'triggers',
      summary:
        'Run a trigger with simulated data: the body is a container object (id, name, watcher, updateKind, …) whose fields replace the simulated ones',
      body: SimulatedContainerBodySchema,
      response: RunResultSchema,
      statuses: {
        400: 'Invalid container object',
        404: 'Unknown trigger',
        502: 'The delivery failed; the entry stays in the outbox',
      },
    },
    async (c, { body }) => {
      const trigger = find(c);
      const container = containerFromBody(body, deps.now());
      if (typeof container === 'string') throw new HttpError(400, `Invalid container object: ${container}`);
      return run(c, trigger, container);
    },
  );

  const containerRun = async (c: Context<HubEnv>) => {
    const container = findContainer(deps.containers, c.req.param('id') ?? '');
    const agent = c.req.param('agent');
    // Notification triggers run in the hub whatever the agent; the agent only has to be the container's.
    if (agent !== undefined && agent !== (container.agent ?? LOCAL_AGENT)) {
      throw new HttpError(404, `The container is not on the agent ${agent.slice(0, 80)}`);
    }
    return run(c, find(c), container);
  };
  // A Docker action trigger run for a container updates it, as in What's Up Docker: the scope of an
  // update, not of a notification (decisions §5), hence a route of its own.
  api.add(
    {
      method: 'post',
      path: '/containers/:id/triggers/docker/:name',
      access: 'containers:update',
      tag: 'containers',
      summary:
        'Run a Docker action trigger for this container: update it to its pending version (as POST /containers/{id}/update naming the trigger)',
      response: v.object({ message: v.string(), operationId: v.string() }),
      successStatus: 202,
      statuses: {
        400: 'No update is available',
        403: 'Container actions are disabled (DD_SERVER_FEATURE_CONTAINERACTIONS=false)',
        404: 'Unknown container, or no such Docker action trigger for its watcher',
        409: 'Already queued or in progress, held by the maturity gate, excluded by dd.action.* labels, or a temporary -old- container',
        503: 'Its watcher is not available, or its edge agent is not connected',
      },
    },
    async (c) => {
      const operation = await deps.updates.requestUpdate(c.req.param('id') ?? '', {
        triggerName: `docker.${c.req.param('name') ?? ''}`,
        source: 'api',
        requestedBy: actorOf(c.get('principal')),
      });
      return c.json(
        {
          message: `Update of ${operation.containerName} to ${operation.targetImage} queued`,
          operationId: operation.id,
        },
        202,
      );
    },
  );

  const containerRunSpec = {
    method: 'post',
    access: 'triggers:run',
    tag: 'containers',
    response: RunResultSchema,
    statuses: { 404: 'Unknown container, trigger or agent', 502: 'The delivery failed; the entry stays in the outbox' },
  } as const;
  api.add(
    {
      ...containerRunSpec,
      // Not `docker`: that one is the action route above.
      path: '/containers/:id/triggers/:type{(?!docker$)[^/]+}/:name',
      summary:
        'Run a notification trigger for this container now (its update-available message), whatever ONCE and THRESHOLD say',
    },
    containerRun,
  );
  api.add(
    {
      ...containerRunSpec,
      path: '/containers/:id/triggers/:type/:name/:agent',
      summary: 'The same, naming the agent of the container (`__local__` for the hub’s own)',
    },
    containerRun,
  );
}
