import type { Context } from 'hono';
import * as v from 'valibot';
import type { Container } from '../../../shared/schemas/container';
import { LOCAL_AGENT } from '../../../shared/update/update-clock';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import type { RouteGroup } from '../http/route-group';
import { routeContainer } from '../notifications/container-routing';
import type { NotificationService } from '../notifications/notification-service';
import { describeTrigger, type NotificationTrigger } from '../notifications/notification-triggers';
import { containerFromBody, SimulatedContainerBodySchema } from '../notifications/simulated-container';
import type { ContainerStore } from '../store/container-store';
import { describeActionTrigger } from '../updates/action-triggers';
import type { UpdateService } from '../updates/update-service';
import { findContainer } from './container-target';

export const TriggerSchema = v.object({
  id: v.string(),
  type: v.string(),
  name: v.string(),
  configuration: v.record(v.string(), v.unknown()),
});
const RunResultSchema = v.object({ triggerId: v.string(), containerId: v.string(), delivered: v.literal(true) });

/** The configured notification triggers, which a container's labels route. */
export interface TriggersOfContainerDeps {
  notifications: Pick<NotificationService, 'triggers'>;
}

/** The notification triggers that apply to a container: all of them, less what its dd.notification.* labels route away. */
export function triggersOfContainer(deps: TriggersOfContainerDeps, container: Container): NotificationTrigger[] {
  return deps.notifications.triggers.filter((trigger) => routeContainer(container.labels, trigger).allowed);
}

/** The trigger routes: notification triggers (listed and run now), action triggers (listed), and the containers they run for. */
export interface TriggerRoutesDeps {
  notifications: Pick<NotificationService, 'triggers' | 'trigger' | 'runTrigger'>;
  updates: Pick<UpdateService, 'triggers'>;
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
      path: '/containers/:id/triggers/:type/:name',
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
