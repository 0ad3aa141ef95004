/**
 * Engine API payloads to the plain data of shared/docker/docker-host.ts. The Engine sends `null`
 * for empty lists and maps (`Labels`, `Env`, `RepoTags`) and leaves out what a state lacks, so
 * every field is read defensively whatever @types/dockerode declares.
 */
import type Docker from 'dockerode';
import {
  CONTAINER_STATES,
  type ContainerState,
  type DockerContainerDetails,
  type DockerContainerEvent,
  type DockerContainerSummary,
  type DockerImageDetails,
  type DockerImageSummary,
  type DockerStats,
} from '../../../shared/docker/docker-host';

/**
 * The lifecycle actions an inventory follows. Left out on purpose: `exec_*` (three per health probe
 * and container), `kill` and `oom` (a `die` follows when they end the container), `attach`,
 * `resize`, `top`, `copy`, `archive-path` and the like. The Engine matches `health_status` against
 * `health_status: healthy` and the other statuses.
 */
export const EVENT_ACTIONS = [
  'create',
  'start',
  'restart',
  'stop',
  'die',
  'pause',
  'unpause',
  'rename',
  'update',
  'destroy',
  'health_status',
] as const;

export const EVENT_FILTERS = { type: ['container'], event: [...EVENT_ACTIONS] };

// Podman's compatible API reports its own states; Docker only ever sends CONTAINER_STATES.
const FOREIGN_STATES: Record<string, ContainerState> = {
  configured: 'created',
  initialized: 'created',
  stopped: 'exited',
  stopping: 'running',
};

function stateOf(status: string | undefined): ContainerState {
  const known = CONTAINER_STATES.find((state) => state === status);
  return known ?? (status ? FOREIGN_STATES[status] : undefined) ?? 'dead';
}

/** `Names` also lists legacy link aliases (`/web/db`); the container's own name has one slash. */
function nameOf(names: string[] | null | undefined): string {
  const list = names ?? [];
  const own = list.find((name) => name.lastIndexOf('/') === 0) ?? list[0] ?? '';
  return own.replace(/^\//, '');
}

export function toSummary(entry: Docker.ContainerInfo): DockerContainerSummary {
  return {
    id: entry.Id,
    name: nameOf(entry.Names),
    image: entry.Image,
    imageId: entry.ImageID,
    state: stateOf(entry.State),
    labels: entry.Labels ?? {},
    createdAt: entry.Created * 1000,
  };
}

const HEALTH = ['starting', 'healthy', 'unhealthy'] as const;

export function toDetails(info: Docker.ContainerInspectInfo): DockerContainerDetails {
  const state: Partial<Docker.ContainerInspectInfo['State']> = info.State ?? {};
  const health = HEALTH.find((status) => status === state.Health?.Status);
  return {
    id: info.Id,
    name: info.Name.replace(/^\//, ''),
    image: info.Config?.Image ?? info.Image,
    imageId: info.Image,
    state: stateOf(state.Status),
    labels: info.Config?.Labels ?? {},
    createdAt: Date.parse(info.Created),
    env: info.Config?.Env ?? [],
    ...(health ? { health } : {}),
    // StartedAt stays set (or is Go's zero time) after the container stops: only a running one has started.
    ...(state.Running && state.StartedAt ? { startedAt: state.StartedAt } : {}),
    restartCount: info.RestartCount ?? 0,
    ...(state.Status === 'exited' && typeof state.ExitCode === 'number' ? { exitCode: state.ExitCode } : {}),
  };
}

export function toImageSummary(info: Docker.ImageInfo): DockerImageSummary {
  return {
    id: info.Id,
    repoTags: (info.RepoTags ?? []).filter((tag) => tag !== '<none>:<none>'),
    repoDigests: (info.RepoDigests ?? []).filter((digest) => digest !== '<none>@<none>'),
    createdAt: info.Created * 1000,
    sizeBytes: info.Size,
    containers: typeof info.Containers === 'number' ? info.Containers : -1,
  };
}

export function toImageDetails(info: Docker.ImageInspectInfo): DockerImageDetails {
  const variant = (info as { Variant?: string }).Variant;
  return {
    id: info.Id,
    repoTags: info.RepoTags ?? [],
    repoDigests: info.RepoDigests ?? [],
    os: info.Os,
    architecture: info.Architecture,
    ...(variant ? { variant } : {}),
    ...(info.Created ? { created: info.Created } : {}),
  };
}

interface EngineEvent {
  id?: string;
  status?: string;
  Action?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> | null };
  time?: number;
  timeNano?: number;
}

export function toContainerEvent(message: unknown): DockerContainerEvent {
  const event = (typeof message === 'object' && message !== null ? message : {}) as EngineEvent;
  // timeNano is past 2^53 and loses some nanoseconds as a JSON number: still exact to the millisecond.
  const time = typeof event.timeNano === 'number' ? Math.floor(event.timeNano / 1e6) : (event.time ?? 0) * 1000;
  return {
    id: event.Actor?.ID ?? event.id ?? '',
    action: event.Action ?? event.status ?? '',
    time,
    attributes: event.Actor?.Attributes ?? {},
  };
}

/** The parts of `GET /containers/{id}/stats` used here; a stopped container sends them empty. */
interface EngineStats {
  cpu_stats?: {
    cpu_usage?: { total_usage?: number; percpu_usage?: number[] | null };
    system_cpu_usage?: number;
    online_cpus?: number;
  };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
}

/**
 * As `docker stats` computes them: CPU as the container's share of the host's CPU time between two
 * samples, times the CPUs online; memory without the page cache the kernel can reclaim
 * (`total_inactive_file` on cgroup v1, `inactive_file` on v2; older CLIs subtracted `cache`).
 */
export function toStats(raw: unknown): DockerStats {
  const stats = raw as EngineStats;
  const cpu = stats.cpu_stats;
  const cpuDelta = (cpu?.cpu_usage?.total_usage ?? 0) - (stats.precpu_stats?.cpu_usage?.total_usage ?? 0);
  const systemDelta = (cpu?.system_cpu_usage ?? 0) - (stats.precpu_stats?.system_cpu_usage ?? 0);
  const cpus = cpu?.online_cpus || cpu?.cpu_usage?.percpu_usage?.length || 1;
  const cpuPercent = cpuDelta > 0 && systemDelta > 0 ? (cpuDelta / systemDelta) * cpus * 100 : 0;

  const memory = stats.memory_stats ?? {};
  const usage = memory.usage ?? 0;
  const reclaimable =
    memory.stats?.['total_inactive_file'] ?? memory.stats?.['inactive_file'] ?? memory.stats?.['cache'] ?? 0;
  return {
    cpuPercent,
    memoryBytes: reclaimable < usage ? usage - reclaimable : usage,
    memoryLimitBytes: memory.limit ?? 0,
  };
}
