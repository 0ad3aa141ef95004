import * as v from 'valibot';
import { DockerNotFoundError } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { ContainerStatsSchema } from '../../../shared/schemas/container-views';
import { streamHeaders } from '../events/sse-route';
import { HttpError } from '../http/http-error';
import { qInt } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { HubDeps } from '../hub-deps';
import { openSampleStream, type SampleFrame } from '../stats/sample-stream';
import { createStatsSampler, type StatsTarget } from '../stats/stats-sampler';
import type { ContainerStore } from '../store/container-store';
import { actionableWatcherOf, type ContainerHosts, findContainer } from './container-target';

const SummarySchema = v.object({
  containers: v.number(),
  sampled: v.number(),
  cpuPercent: v.number(),
  memoryBytes: v.number(),
  memoryLimitBytes: v.number(),
  at: v.string(),
});

// Docker takes about a second per sample, so a shorter interval would only repeat the last one.
const intervalParam = qInt({ min: 1, max: 60, default: 2, description: 'Seconds between samples' });

/** Container stats: the records, the hosts that sample them, and the runtime the SSE headers are for. */
export interface ContainerStatsRoutesDeps extends ContainerHosts {
  containers: Pick<ContainerStore, 'get' | 'all'>;
  logger: Logger;
  now: () => number;
  runtime: HubDeps['runtime'];
}

/** Container and fleet resource use (http-interface §4.14): snapshots with history, and SSE streams of samples. */
export function registerContainerStatsRoutes(api: RouteGroup, deps: ContainerStatsRoutesDeps): void {
  const { containers } = deps;
  const logger = deps.logger.child('containers.stats');
  const sampler = createStatsSampler({ now: deps.now, isKnown: (id) => containers.get(id) !== undefined });

  /**
   * The running containers of the inventory, and those that can be sampled now: a local watcher's,
   * and a connected agent's through its watcher's host (one request over the agent's link each, as
   * for one container's stats). An away agent's containers count as running but not as sampled.
   */
  const fleet = () => {
    const running = containers.all().filter((container) => container.status === 'running');
    const targets: StatsTarget[] = [];
    for (const container of running) {
      if (container.agent !== undefined && !deps.agents.isConnected(container.agent)) continue;
      const watcher = deps.fleet.ownerOf(container);
      if (watcher) targets.push({ id: container.id, host: watcher.host, hostKey: watcher.id });
    }
    return { running: running.length, targets };
  };

  /** Resolves before answering, so an unknown container or watcher gets its JSON error (404, 503). */
  const targetOf = (id: string) => {
    const container = findContainer(containers, id);
    return { container, watcher: actionableWatcherOf(deps, container) };
  };

  api.add(
    {
      method: 'get',
      path: '/containers/:id/stats',
      access: 'read',
      tag: 'containers',
      summary: 'CPU and memory of one container now, with the recent samples',
      response: ContainerStatsSchema,
      statuses: {
        404: 'Unknown container, or gone from Docker',
        409: 'A record of a watcher type without container actions (swarm, file, dockerfile)',
        500: 'Docker failed',
        503: 'Its watcher is not available',
      },
    },
    async (c) => {
      const { container, watcher } = targetOf(c.req.param('id') ?? '');
      try {
        const current = await sampler.sample(container.id, watcher.host);
        return c.json({ containerId: container.id, current, history: sampler.history(container.id) });
      } catch (error) {
        if (error instanceof DockerNotFoundError)
          throw new HttpError(404, `The container ${container.name} no longer exists in Docker`);
        logger.warn('stats failed', { container: container.name, error: errorMessage(error) });
        throw new HttpError(500, 'Docker could not report the container stats', { reason: errorMessage(error) });
      }
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/stats/stream',
      access: 'read',
      tag: 'containers',
      summary:
        'Server-Sent Events: container-stats samples every interval; stats-error frames on failures (the last one when it is gone)',
      query: { interval: intervalParam },
      statuses: {
        404: 'Unknown container',
        409: 'A record without container actions',
        503: 'Its watcher is not available',
      },
    },
    (c, { query }) => {
      const { container, watcher } = targetOf(c.req.param('id') ?? '');
      const headers = streamHeaders(deps.runtime);
      if (c.req.method === 'HEAD') return c.body(null, 200, headers);
      const next = async (): Promise<SampleFrame> => {
        try {
          return {
            event: 'container-stats',
            data: { containerId: container.id, ...(await sampler.sample(container.id, watcher.host)) },
          };
        } catch (error) {
          const gone = error instanceof DockerNotFoundError;
          if (!gone) logger.warn('stats sample failed', { container: container.name, error: errorMessage(error) });
          return {
            event: 'stats-error',
            data: { containerId: container.id, error: gone ? 'The container no longer exists' : 'Docker failed' },
            end: gone,
          };
        }
      };
      return c.body(
        openSampleStream({ intervalMs: query.interval * 1000, next, signal: c.req.raw.signal }),
        200,
        headers,
      );
    },
  );

  api.add(
    {
      method: 'get',
      path: '/stats/summary',
      access: 'read',
      tag: 'containers',
      summary: 'Fleet aggregate CPU and memory over the running containers (shared for 2 seconds)',
      response: SummarySchema,
    },
    async (c) => c.json(await sampler.summary(fleet)),
  );

  api.add(
    {
      method: 'get',
      path: '/stats/summary/stream',
      access: 'read',
      tag: 'containers',
      summary: 'Server-Sent Events: stats-summary frames of the fleet aggregate every interval',
      query: { interval: intervalParam },
    },
    (c, { query }) => {
      const headers = streamHeaders(deps.runtime);
      if (c.req.method === 'HEAD') return c.body(null, 200, headers);
      const next = async (): Promise<SampleFrame> => ({ event: 'stats-summary', data: await sampler.summary(fleet) });
      return c.body(
        openSampleStream({ intervalMs: query.interval * 1000, next, signal: c.req.raw.signal }),
        200,
        headers,
      );
    },
  );
}
