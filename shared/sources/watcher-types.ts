import * as v from 'valibot';
import { WATCHER_TYPES } from '../docker/watcher-config';

/** What a watcher of one type can do (GET /api/v1/watchers/types, docs/sources.md). */
export const WatcherTypeCapabilitiesSchema = v.object({
  type: v.picklist(WATCHER_TYPES),
  /** What it watches, in a few words. */
  watches: v.string(),
  /** DD_WATCHER_<NAME>_<KEY> keys it takes, besides TYPE. */
  configuration: v.array(v.string()),
  /** Its records can be updated through the update routes and actions (edge agents' through their agent). */
  update: v.boolean(),
  /** Start, stop, restart, logs and stats. */
  containerActions: v.boolean(),
  /** POST …/inventory refreshes it without registry checks (http-interface §4.3). */
  inventoryRefresh: v.boolean(),
  /** Changes arrive between cycles (Docker events; file changes on the hub's file system). */
  liveChanges: v.boolean(),
  /** Where it runs: the hub on Node (and edge agents, for docker and podman). Workers refuse DD_WATCHER_*. */
  runtimes: v.array(v.picklist(['node', 'edge-agent'])),
});
export type WatcherTypeCapabilities = v.InferOutput<typeof WatcherTypeCapabilitiesSchema>;

const SCHEDULE_KEYS = ['cron', 'jitter', 'watchbydefault'] as const;

export const WATCHER_TYPE_CAPABILITIES: readonly WatcherTypeCapabilities[] = [
  {
    type: 'docker',
    watches: 'the containers of a Docker Engine (a socket or a TCP host)',
    configuration: ['socket', 'host', 'port', ...SCHEDULE_KEYS, 'watchall', 'composefiles'],
    update: true,
    containerActions: true,
    inventoryRefresh: true,
    liveChanges: true,
    runtimes: ['node', 'edge-agent'],
  },
  {
    type: 'swarm',
    watches: "the services of a Docker Swarm manager's Engine API (their tasks are not records)",
    configuration: ['socket', 'host', 'port', ...SCHEDULE_KEYS],
    update: true,
    containerActions: false,
    inventoryRefresh: true,
    liveChanges: false,
    runtimes: ['node'],
  },
  {
    type: 'podman',
    watches: "the containers of a Podman service's Docker-compatible socket (a pod's containers grouped by pod)",
    configuration: ['socket', 'host', 'port', ...SCHEDULE_KEYS, 'watchall', 'composefiles'],
    update: true,
    containerActions: true,
    inventoryRefresh: true,
    liveChanges: true,
    runtimes: ['node', 'edge-agent'],
  },
  {
    type: 'file',
    watches: 'the image references of one image list (YAML or JSON)',
    configuration: ['file', ...SCHEDULE_KEYS],
    update: false,
    containerActions: false,
    inventoryRefresh: true,
    liveChanges: true,
    runtimes: ['node'],
  },
  {
    type: 'dockerfile',
    watches: 'every FROM of the Dockerfiles and every image: of the compose files under a directory',
    configuration: ['directory', ...SCHEDULE_KEYS],
    update: false,
    containerActions: false,
    inventoryRefresh: true,
    liveChanges: true,
    runtimes: ['node'],
  },
];
