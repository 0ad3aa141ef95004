import * as v from 'valibot';
import { describeEndpoint } from '../../../shared/docker/watcher-config';
import { WATCHER_TYPE_CAPABILITIES, WatcherTypeCapabilitiesSchema } from '../../../shared/sources/watcher-types';
import type { AgentDirectory } from '../agents/agent-directory';
import { EdgeRequestError } from '../agents/edge-requests';
import type { InventoryExpectations } from '../agents/inventory-expectations';
import type { HubConfig } from '../config/hub-config';
import { HttpError } from '../http/http-error';
import { pageOf } from '../http/paged-list';
import { qInt } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import { describeFileSource } from '../sources/describe-file-source';
import type { DockerWatcher } from '../watchers/docker-watcher';
import type { Fleet } from '../watchers/fleet';
import type { ObservedInventory } from '../watchers/inventory-sync';
import { toPublicContainer } from '../watchers/public-container';
import { agentFailure } from './agent-routes';

export const INVENTORY_DEADLINE_MS = 30_000;
const WATCHER_TYPES: ReadonlySet<string> = new Set(WATCHER_TYPE_CAPABILITIES.map(({ type }) => type));

/** The watcher routes: the fleet, the configuration of the hub's own watchers, and agents reached through the directory. */
export interface WatcherRoutesDeps {
  fleet: Fleet;
  config: Pick<HubConfig, 'watchers' | 'swarmWatchers' | 'podmanWatchers' | 'fileSources'>;
  agents: AgentDirectory;
  expectations: InventoryExpectations;
  /** Deadline of an inventory refresh (30 s); shorter in tests. */
  inventoryDeadlineMs: number | undefined;
}

/** A watcher as http-interface §2.2 shows it: configuration masked (there are no secrets in it today). */
function describeWatcher(watcher: DockerWatcher, deps: WatcherRoutesDeps) {
  const agent = watcher.agent;
  if (watcher.type !== 'docker' && watcher.type !== 'swarm' && watcher.type !== 'podman')
    return describeFileSource(watcher, deps.config.fileSources);
  const ownConfigs = {
    docker: deps.config.watchers,
    swarm: deps.config.swarmWatchers,
    podman: deps.config.podmanWatchers,
  }[watcher.type];
  const local = agent === undefined ? ownConfigs.find((w) => w.name === watcher.name) : undefined;
  const remote = agent === undefined ? undefined : deps.agents.runtime(agent)?.get(watcher.name)?.config;
  const configuration = local
    ? {
        endpoint: describeEndpoint(local.endpoint),
        cron: local.cron,
        jitter: local.jitterSeconds,
        watchbydefault: local.watchByDefault,
        watchall: local.watchAll,
      }
    : remote && {
        endpoint: remote.endpoint,
        cron: remote.cron,
        jitter: remote.jitterSeconds,
        watchbydefault: remote.watchByDefault,
        watchall: remote.watchAll,
      };
  return {
    id: watcher.id,
    type: watcher.type,
    name: watcher.name,
    configuration,
    ...(agent !== undefined && { agent }),
    metadata: {
      ...(watcher.lastRunAt !== undefined && { lastRunAt: new Date(watcher.lastRunAt).toISOString() }),
      ...(watcher.nextRunAt !== undefined && { nextRunAt: new Date(watcher.nextRunAt).toISOString() }),
      inventoryRefreshSupported: true,
    },
  };
}

const EmptyBody = v.optional(v.strictObject({}));

type InventoryOutcome = ObservedInventory;
type Source = { type: string; name: string; agent?: string };

/** The http-interface §4.3 result: the source's persisted inventory, and what kept it from being authoritative. */
function inventoryResult(outcome: InventoryOutcome, operationId: string, source: Source, current: boolean) {
  const errors: { phase: string; id?: string; message: string }[] = outcome.errors.map(({ phase, id, message }) => ({
    phase,
    ...(id && { id }),
    message: message.slice(0, 500),
  }));
  if (!current)
    errors.push({
      phase: 'stale',
      message: 'a newer inventory request superseded this one; its observations were not written',
    });
  return {
    context: { operationId, source },
    containers: outcome.records.map(toPublicContainer),
    removedIds: current ? outcome.removedIds : [],
    errors,
    authoritative: outcome.authoritative && current,
  };
}

/**
 * One inventory operation under the http-interface §4.3 deadline: `work` gets the operation's id and its
 * isCurrent (false once timed out or superseded: then it must write nothing).
 */
async function runInventory(
  deadlineMs: number,
  latest: Map<string, string>,
  key: string,
  work: (operationId: string, isCurrent: () => boolean) => Promise<InventoryOutcome>,
  onSettled: (operationId: string) => void = () => undefined,
): Promise<{ operationId: string; outcome: InventoryOutcome; current: boolean }> {
  const operationId = crypto.randomUUID();
  latest.set(key, operationId);
  let timedOut = false;
  const isCurrent = () => !timedOut && latest.get(key) === operationId;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), deadlineMs);
  });
  const outcome = await Promise.race([work(operationId, isCurrent), deadline]).finally(() => {
    clearTimeout(timer);
    onSettled(operationId);
  });
  if (outcome === 'timeout') {
    timedOut = true;
    throw new HttpError(
      504,
      'The inventory refresh did not finish within 30 seconds; nothing it observes later is written',
      {
        operationId,
      },
    );
  }
  return { operationId, outcome, current: isCurrent() };
}

export function registerWatcherRoutes(api: RouteGroup, deps: WatcherRoutesDeps): void {
  const deadlineMs = deps.inventoryDeadlineMs ?? INVENTORY_DEADLINE_MS;
  // The newest inventory request per watcher; an older one still running may no longer write.
  const latest = new Map<string, string>();

  const unknownWatcher = (type: string, name: string): never => {
    if (!WATCHER_TYPES.has(type)) throw new HttpError(404, `Unknown watcher type ${type.slice(0, 40)}`);
    throw new HttpError(404, `Unknown watcher ${type.slice(0, 40)}.${name.slice(0, 80)}`);
  };
  /** The hub's own watcher; agents' watchers are reached through their agent segment. */
  const ofType = (type: string, watcher: DockerWatcher | undefined) => (watcher?.type === type ? watcher : undefined);
  const find = (type: string, name: string): DockerWatcher =>
    ofType(type, deps.fleet.find(name, undefined)) ?? unknownWatcher(type, name);
  const findOnAgent = (type: string, name: string, agent: string): DockerWatcher => {
    const runtime = deps.agents.runtime(agent);
    if (!runtime) throw new HttpError(404, `Unknown agent ${agent.slice(0, 80)}`);
    return ofType(type, runtime.get(name)?.watcher) ?? unknownWatcher(type, name);
  };

  api.add(
    {
      method: 'get',
      path: '/watchers',
      access: 'read',
      tag: 'watchers',
      summary: "Watchers: the hub's own, then those of edge agents (with agent)",
      query: { limit: qInt({ min: 0, max: 200, default: 0 }), offset: qInt({ min: 0, max: 100_000, default: 0 }) },
    },
    (c, { query }) => {
      // The hub's own in configuration order, then each agent's (a stable sort keeps their order).
      const ordered = [...deps.fleet.all()].sort((a, b) => (a.agent ?? '').localeCompare(b.agent ?? ''));
      const all = ordered.map((w) => describeWatcher(w, deps));
      return c.json(pageOf(all, query));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/watchers/types',
      access: 'read',
      tag: 'watchers',
      summary: 'The watcher types and what each can do (docs/sources.md)',
      response: v.object({ data: v.array(WatcherTypeCapabilitiesSchema), total: v.number() }),
    },
    (c) => c.json({ data: WATCHER_TYPE_CAPABILITIES, total: WATCHER_TYPE_CAPABILITIES.length }),
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
    (c) => c.json(describeWatcher(find(c.req.param('type') ?? '', c.req.param('name') ?? ''), deps)),
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
    (c) =>
      c.json(
        describeWatcher(
          findOnAgent(c.req.param('type') ?? '', c.req.param('name') ?? '', c.req.param('agent') ?? ''),
          deps,
        ),
      ),
  );

  api.add(
    {
      method: 'post',
      path: '/watchers/:type/:name/inventory',
      access: 'containers:watch',
      tag: 'watchers',
      summary: 'Refresh the inventory without registry checks',
      body: EmptyBody,
      statuses: {
        404: 'Unknown watcher',
        501: 'The provider cannot refresh its inventory',
        504: 'Past the 30-second deadline',
      },
    },
    async (c) => {
      const type = c.req.param('type') ?? '';
      if (!WATCHER_TYPES.has(type))
        throw new HttpError(501, `Watchers of type ${type.slice(0, 40)} cannot refresh their inventory`);
      const watcher = find(type, c.req.param('name') ?? '');
      const run = await runInventory(deadlineMs, latest, watcher.id, (_id, isCurrent) =>
        watcher.refreshInventory(isCurrent),
      );
      return c.json(
        inventoryResult(run.outcome, run.operationId, { type: watcher.type, name: watcher.name }, run.current),
      );
    },
  );
  api.add(
    {
      method: 'post',
      path: '/watchers/:type/:name/:agent/inventory',
      access: 'containers:watch',
      tag: 'watchers',
      summary: "Refresh an agent's watcher inventory (a fresh observation by the agent, no registry checks)",
      body: EmptyBody,
      statuses: {
        404: 'Unknown agent or watcher',
        501: 'The provider cannot refresh its inventory',
        503: 'Agent not connected',
        504: 'Past the 30-second deadline',
      },
    },
    async (c) => {
      const type = c.req.param('type') ?? '';
      const agent = c.req.param('agent') ?? '';
      if (!WATCHER_TYPES.has(type))
        throw new HttpError(501, `Watchers of type ${type.slice(0, 40)} cannot refresh their inventory`);
      const watcher = findOnAgent(type, c.req.param('name') ?? '', agent);
      if (!deps.agents.isConnected(agent)) throw new HttpError(503, `The agent ${agent} is not connected`, { agent });
      const run = await runInventory(
        deadlineMs,
        latest,
        `${agent}/${watcher.id}`,
        (operationId, isCurrent) => refreshThroughAgent(deps, agent, watcher, { operationId, isCurrent, deadlineMs }),
        (operationId) => deps.expectations.forget(agent, watcher.name, operationId),
      );
      return c.json(
        inventoryResult(run.outcome, run.operationId, { type: watcher.type, name: watcher.name, agent }, run.current),
      );
    },
  );
}

/**
 * The agent observes afresh and sends the snapshot (echoing operationId, which the hub applies
 * only while this operation is the awaited one), then replies; the watcher then reads that
 * inventory like any other. An agent that could not observe keeps the last-known records.
 */
async function refreshThroughAgent(
  deps: Pick<WatcherRoutesDeps, 'agents' | 'expectations'>,
  agent: string,
  watcher: DockerWatcher,
  { operationId, isCurrent, deadlineMs }: { operationId: string; isCurrent: () => boolean; deadlineMs: number },
): Promise<InventoryOutcome> {
  deps.expectations.expect(agent, watcher.name, operationId);
  try {
    await deps.agents.request(
      agent,
      { method: 'inventory', watcher: watcher.name, operationId },
      { timeoutMs: deadlineMs },
    );
  } catch (error) {
    if (error instanceof EdgeRequestError && error.code !== 'disconnected' && error.code !== 'aborted') {
      return {
        records: watcher.containers(),
        removedIds: [],
        errors: [{ phase: 'list', message: error.message }],
        authoritative: false,
      };
    }
    throw agentFailure(agent, error);
  }
  return watcher.refreshInventory(isCurrent);
}
