import * as v from 'valibot';
import { HttpError } from '../http/http-error';
import { qInt } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { HubServices } from '../hub-services';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { toPublicContainer } from '../watchers/public-container';
import { describeEndpoint } from '../watchers/watcher-config';

export const INVENTORY_DEADLINE_MS = 30_000;
const WATCHER_TYPES = new Set(['docker']);

/** A watcher as spec 2.2 shows it: configuration masked (there are no secrets in it today). */
function describeWatcher(watcher: DockerWatcher, config: HubServices['config']) {
  const watcherConfig = config.watchers.find((w) => w.name === watcher.name);
  return {
    id: watcher.id,
    type: watcher.type,
    name: watcher.name,
    configuration: watcherConfig && {
      endpoint: describeEndpoint(watcherConfig.endpoint),
      cron: watcherConfig.cron,
      jitter: watcherConfig.jitterSeconds,
      watchbydefault: watcherConfig.watchByDefault,
      watchall: watcherConfig.watchAll,
    },
    metadata: {
      ...(watcher.lastRunAt !== undefined && { lastRunAt: new Date(watcher.lastRunAt).toISOString() }),
      ...(watcher.nextRunAt !== undefined && { nextRunAt: new Date(watcher.nextRunAt).toISOString() }),
      inventoryRefreshSupported: true,
    },
  };
}

const EmptyBody = v.optional(v.strictObject({}));

export function registerWatcherRoutes(api: RouteGroup, services: HubServices): void {
  // The newest inventory request per watcher; an older one still running may no longer write.
  const latest = new Map<string, string>();

  const find = (type: string, name: string): DockerWatcher => {
    const watcher = services.watchers.find((w) => w.type === type && w.name === name);
    if (!watcher) {
      if (!WATCHER_TYPES.has(type)) throw new HttpError(404, `Unknown watcher type ${type.slice(0, 40)}`);
      throw new HttpError(404, `Unknown watcher ${type.slice(0, 40)}.${name.slice(0, 80)}`);
    }
    return watcher;
  };
  const noAgent = (agent: string): never => {
    throw new HttpError(404, `Unknown agent ${agent.slice(0, 80)}`);
  };

  api.add(
    {
      method: 'get',
      path: '/watchers',
      access: 'read',
      tag: 'watchers',
      summary: 'Watchers',
      query: { limit: qInt({ min: 0, max: 200, default: 0 }), offset: qInt({ min: 0, max: 100_000, default: 0 }) },
    },
    (c, { query }) => {
      const all = services.watchers.map((w) => describeWatcher(w, services.config));
      const data = query.limit === 0 ? all.slice(query.offset) : all.slice(query.offset, query.offset + query.limit);
      return c.json({
        data,
        total: all.length,
        limit: query.limit,
        offset: query.offset,
        hasMore: query.offset + data.length < all.length,
      });
    },
  );
  api.add(
    {
      method: 'get',
      path: '/watchers/:type/:name',
      access: 'read',
      tag: 'watchers',
      summary: 'One watcher',
      statuses: { 404: 'Unknown watcher' },
    },
    (c) => c.json(describeWatcher(find(c.req.param('type') ?? '', c.req.param('name') ?? ''), services.config)),
  );
  api.add(
    {
      method: 'get',
      path: '/watchers/:type/:name/:agent',
      access: 'read',
      tag: 'watchers',
      summary: 'A watcher registered on an agent',
      statuses: { 404: 'Unknown agent or watcher' },
    },
    (c) => noAgent(c.req.param('agent') ?? ''),
  );

  api.add(
    {
      method: 'post',
      path: '/watchers/:type/:name/inventory',
      access: 'containers:watch',
      tag: 'watchers',
      summary: 'Refresh the inventory without registry checks',
      body: EmptyBody,
      statuses: { 404: 'Unknown watcher', 501: 'The provider cannot refresh its inventory', 504: 'Past the 30-second deadline' },
    },
    async (c) => {
      const type = c.req.param('type') ?? '';
      if (!WATCHER_TYPES.has(type)) throw new HttpError(501, `Watchers of type ${type.slice(0, 40)} cannot refresh their inventory`);
      const watcher = find(type, c.req.param('name') ?? '');
      const operationId = crypto.randomUUID();
      latest.set(watcher.id, operationId);
      let timedOut = false;
      const isCurrent = () => !timedOut && latest.get(watcher.id) === operationId;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), services.deps.inventoryDeadlineMs ?? INVENTORY_DEADLINE_MS);
      });
      const outcome = await Promise.race([watcher.refreshInventory(isCurrent), deadline]).finally(() => clearTimeout(timer));
      if (outcome === 'timeout') {
        timedOut = true;
        throw new HttpError(504, 'The inventory refresh did not finish within 30 seconds; nothing it observes later is written', {
          operationId,
        });
      }
      const errors: { phase: string; id?: string; message: string }[] = outcome.errors.map(({ phase, id, message }) => ({
        phase,
        ...(id && { id }),
        message: message.slice(0, 500),
      }));
      if (!isCurrent())
        errors.push({ phase: 'stale', message: 'a newer inventory request superseded this one; its observations were not written' });
      return c.json({
        context: { operationId, source: { type: watcher.type, name: watcher.name } },
        containers: outcome.records.map(toPublicContainer),
        removedIds: isCurrent() ? outcome.removedIds : [],
        errors,
        authoritative: outcome.authoritative && isCurrent(),
      });
    },
  );
  api.add(
    {
      method: 'post',
      path: '/watchers/:type/:name/:agent/inventory',
      access: 'containers:watch',
      tag: 'watchers',
      summary: "Refresh an agent's watcher inventory",
      body: EmptyBody,
      statuses: { 404: 'Unknown agent or watcher', 503: 'Agent not connected' },
    },
    (c) => noAgent(c.req.param('agent') ?? ''),
  );
}
