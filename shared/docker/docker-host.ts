/**
 * The narrow view of a Docker Engine that the hub and the edge agent work through. The only
 * implementation over the real Engine API lives in `edge-agent/src/docker/` (the one place that
 * imports dockerode); the hub's Node entry hands it to the portable core, and the edge agent uses
 * it on remote hosts. Everything here is plain data, so it crosses the edge protocol unchanged.
 */

/** Docker's container states (`State.Status`). */
export const CONTAINER_STATES = ['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead'] as const;
export type ContainerState = (typeof CONTAINER_STATES)[number];

export interface DockerContainerSummary {
  id: string;
  /** Without Docker's leading slash. */
  name: string;
  /** The image as the container was created with it (`Config.Image`): `nginx:1.27`, `ghcr.io/a/b@sha256:…`. */
  image: string;
  /** The local image id (`sha256:…`). */
  imageId: string;
  state: ContainerState;
  labels: Record<string, string>;
  /** Unix milliseconds. */
  createdAt: number;
}

export interface DockerContainerDetails extends DockerContainerSummary {
  /** `KEY=value` entries as Docker reports them; the hub redacts sensitive values before showing them. */
  env: string[];
  health?: 'starting' | 'healthy' | 'unhealthy';
  /** ISO 8601, when running. */
  startedAt?: string;
  restartCount: number;
}

export interface DockerImageDetails {
  id: string;
  repoTags: string[];
  /** `name@sha256:…` entries: the digests the image was pulled by. */
  repoDigests: string[];
  os: string;
  architecture: string;
  variant?: string;
  /** ISO 8601 build date from the image config. */
  created?: string;
}

/** A container event of the Engine's event stream. */
export interface DockerContainerEvent {
  id: string;
  /** `create`, `destroy`, `start`, `stop`, `die`, `rename`, `health_status: healthy`, ... as Docker sends it. */
  action: string;
  /** Unix milliseconds. */
  time: number;
  attributes: Record<string, string>;
}

export interface DockerEventHandlers {
  onEvent(event: DockerContainerEvent): void;
  /** The stream failed or ended; the subscriber decides whether and when to subscribe again. */
  onClose(error: Error | undefined): void;
}

export interface DockerSubscription {
  close(): void;
}

export interface DockerLogOptions {
  stdout: boolean;
  stderr: boolean;
  /** Last lines; undefined for all. */
  tail?: number;
  /** Unix seconds. */
  since?: number;
  timestamps: boolean;
  follow: boolean;
}

export interface DockerLogLine {
  stream: 'stdout' | 'stderr';
  /** ISO 8601 from Docker's timestamps. */
  ts: string;
  line: string;
}

export interface DockerStats {
  /** Share of one CPU, 0..(cores × 100). */
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number;
}

/** Failures the caller must tell apart; everything else is an Error with a message naming the host. */
export class DockerNotFoundError extends Error {
  constructor(what: string) {
    super(`${what} not found`);
    this.name = 'DockerNotFoundError';
  }
}

export interface DockerHost {
  /** Where the Engine is, for logs and masked configuration: `unix:///var/run/docker.sock`, `tcp://host:2375`. */
  readonly endpoint: string;
  ping(): Promise<void>;
  listContainers(all: boolean): Promise<DockerContainerSummary[]>;
  /** Undefined when the container is gone (removed between list and inspect). */
  inspectContainer(id: string): Promise<DockerContainerDetails | undefined>;
  inspectImage(id: string): Promise<DockerImageDetails | undefined>;
  subscribeEvents(handlers: DockerEventHandlers): DockerSubscription;
  /** Log lines in order; ends when the container's log ends (or at once when not following). Throws DockerNotFoundError. */
  logs(id: string, options: DockerLogOptions, signal: AbortSignal): AsyncIterable<DockerLogLine>;
  /** Throw DockerNotFoundError for an unknown container. */
  start(id: string): Promise<void>;
  stop(id: string): Promise<void>;
  restart(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  stats(id: string): Promise<DockerStats>;
  close(): Promise<void>;
}
