import type { Hono } from 'hono';
import * as v from 'valibot';
import {
  AGENT_REVISION_HEADER,
  type AgentInventoryResult,
  type AgentWatcher,
  OperationIdSchema,
} from '../../../shared/agent-api/listen-schemas';
import { describeEndpoint } from '../../../shared/docker/watcher-config';
import { type ListenContext, watcherOf } from './listen-context';
import { jsonBody, ListenHttpError, parseOr400 } from './listen-errors';
import type { ListenWatcher } from './listen-watcher';

/** A watcher as http-interface §2.2 shows it (the hub's own list has the same fields). */
export function describeListenWatcher(watcher: ListenWatcher): AgentWatcher {
  const { config } = watcher;
  const nextRunAt = watcher.nextRunAt;
  const type = config.type ?? 'docker';
  return {
    id: `${type}.${watcher.name}`,
    type,
    name: watcher.name,
    configuration: {
      endpoint: describeEndpoint(config.endpoint),
      cron: config.cron,
      jitter: config.jitterSeconds,
      watchbydefault: config.watchByDefault,
      watchall: config.watchAll,
    },
    metadata: {
      ...(watcher.lastRunAt !== undefined && { lastRunAt: new Date(watcher.lastRunAt).toISOString() }),
      ...(nextRunAt !== undefined && { nextRunAt: new Date(nextRunAt).toISOString() }),
      inventoryRefreshSupported: true,
    },
  };
}

const InventoryBody = v.object({ operationId: OperationIdSchema });

/** Watchers and triggers of http-interface §4.5. The agent has no triggers: they run in the hub. */
export function registerWatcherRoutes(app: Hono, context: ListenContext): void {
  const { state } = context;

  app.get('/api/watchers', (c) => c.json(context.watchers.map(describeListenWatcher)));

  // Manual watch: a fresh observation of the host; answers the watcher's inventory after it.
  app.post('/api/watchers/:type/:name', async (c) => {
    const watcher = watcherOf(context, c.req.param('type'), c.req.param('name'));
    const observation = await watcher.observe();
    if (!observation.authoritative) {
      throw new ListenHttpError(502, `Watcher ${watcher.name} could not observe its Docker host`, {
        reason: observation.errors[0]?.message ?? 'unknown',
      });
    }
    c.header(AGENT_REVISION_HEADER, String(state.revision));
    return c.json(observation.containers);
  });

  app.post('/api/watchers/:type/:name/container/:id', async (c) => {
    const watcher = watcherOf(context, c.req.param('type'), c.req.param('name'));
    const id = c.req.param('id');
    const container = await watcher.refreshContainer(id);
    if (!container)
      throw new ListenHttpError(404, `No container ${id.slice(0, 80)} in the inventory of watcher ${watcher.name}`);
    c.header(AGENT_REVISION_HEADER, String(state.revision));
    return c.json(container);
  });

  // http-interface §4.3 / §4.5: the changes become dd:inventory-* events carrying the operationId, and the
  // answer is the watcher's whole inventory after the observation.
  app.post('/api/watchers/:type/:name/inventory', async (c) => {
    const watcher = watcherOf(context, c.req.param('type'), c.req.param('name'));
    const { operationId } = parseOr400(InventoryBody, await jsonBody(c.req.raw), 'operationId');
    const observation = await watcher.observe(operationId);
    const result: AgentInventoryResult = {
      context: { operationId, source: { type: watcher.config.type ?? 'docker', name: watcher.name } },
      containers: observation.containers,
      removedIds: observation.removedIds,
      errors: observation.errors,
      authoritative: observation.authoritative,
    };
    c.header(AGENT_REVISION_HEADER, String(state.revision));
    return c.json(result);
  });

  app.get('/api/triggers', (c) => c.json([]));
  const noTrigger = (type: string, name: string) =>
    new ListenHttpError(
      404,
      `Unknown trigger ${type.slice(0, 40)}.${name.slice(0, 80)}: this agent runs no triggers (they run in the hub)`,
    );
  app.post('/api/triggers/:type/:name', (c) => {
    throw noTrigger(c.req.param('type'), c.req.param('name'));
  });
  app.post('/api/triggers/:type/:name/batch', (c) => {
    throw noTrigger(c.req.param('type'), c.req.param('name'));
  });
}
