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
  /** The main process's exit code, once the container has exited. */
  exitCode?: number;
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
  /**
   * True when every container change after `subscribeEvents()` arrives as an event (the Engine
   * replays its events from the moment of subscribing): a watcher may then reuse an inspect answer
   * until an event about that container comes (hub/src/watchers/inspect-cache.ts).
   */
  readonly eventsCoverChanges?: boolean;
  /**
   * True when inspects answer from memory (an edge agent's mirrored inventory): a watch cycle then
   * gains nothing by starting registry requests from the listing before them, and would build
   * every new container's record twice (issue 30: 1.6 s of a 10,000-agent burst).
   */
  readonly inspectsInMemory?: boolean;
  ping(): Promise<void>;
  listContainers(all: boolean): Promise<DockerContainerSummary[]>;
  /**
   * By id or name; undefined when the container is gone (removed between list and inspect). The
   * Engine reads a name nobody holds as an id prefix, so a lookup by name must check the answer's name.
   */
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
  /**
   * The image as `docker save` writes it (`GET /images/{id}/get`: a tar of its layers and
   * manifest), streamed in the Engine's chunks; the SBOM generator reads it (docs/security.md).
   * Optional: a host without it (an agent of an older version) has no SBOMs. Throws DockerNotFoundError.
   */
  exportImage?(imageId: string, signal: AbortSignal): AsyncIterable<Uint8Array>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Updating containers (docs/updates.md): what the update engine (shared/update-engine/) needs of a host.
// ---------------------------------------------------------------------------------------------

/** One network the container is attached to, as it has to be attached again. */
export interface ContainerNetworkSpec {
  name: string;
  /** User-given aliases; Docker's automatic one (the container's short id) is left out. */
  aliases: string[];
  /** Static addresses only (`--ip`, `--ip6`); dynamically assigned ones are not kept. */
  ipv4Address?: string;
  ipv6Address?: string;
  links?: string[];
  driverOpts?: Record<string, string>;
}

export interface ContainerHealthcheckSpec {
  /** `["CMD", ...]`, `["CMD-SHELL", "..."]` or `["NONE"]`. */
  test: string[];
  intervalNs?: number;
  timeoutNs?: number;
  startPeriodNs?: number;
  retries?: number;
}

/**
 * Everything needed to create a container again the way it was, in plain data (it crosses the
 * edge protocol and is kept in backups). Fields that come from the image (cmd, entrypoint, env,
 * labels, user, working dir, healthcheck, exposed ports) hold only what was set explicitly, so the
 * new image's own defaults apply to the rest; absent means "the image's default".
 */
export interface ContainerSpec {
  name: string;
  /** The reference to create it from (`Config.Image`); the engine replaces it with the update's target. */
  image: string;
  cmd?: string[];
  entrypoint?: string[];
  /** `KEY=value` entries that are not the image's own. */
  env: string[];
  /** Labels that are not the image's own (compose labels, dd.* labels, …). */
  labels: Record<string, string>;
  user?: string;
  workingDir?: string;
  /** Only when set explicitly: Docker's default host name is the container's short id. */
  hostname?: string;
  domainname?: string;
  /** `80/tcp` entries beyond the image's own. */
  exposedPorts: string[];
  /** `80/tcp` → host bindings, as `-p` made them. */
  portBindings: Record<string, { hostIp: string; hostPort: string }[]>;
  publishAllPorts: boolean;
  /** `volume:/path[:opts]` and `/host:/path[:opts]`, plus anonymous volumes by their name so their data stays. */
  binds: string[];
  /** `--mount` entries, as Docker reported them (HostConfig.Mounts). */
  mounts: Record<string, unknown>[];
  tmpfs: Record<string, string>;
  /** `bridge`, `host`, `none`, `container:<id>` or the first user network. */
  networkMode: string;
  networks: ContainerNetworkSpec[];
  restartPolicy: { name: string; maximumRetryCount: number };
  healthcheck?: ContainerHealthcheckSpec;
  resources: {
    memory?: number;
    memoryReservation?: number;
    memorySwap?: number;
    nanoCpus?: number;
    cpuShares?: number;
    cpuQuota?: number;
    cpuPeriod?: number;
    cpusetCpus?: string;
    pidsLimit?: number;
  };
  capAdd: string[];
  capDrop: string[];
  devices: { pathOnHost: string; pathInContainer: string; cgroupPermissions: string }[];
  privileged: boolean;
  /** `--init`; absent leaves it to the daemon's default. */
  init?: boolean;
  logConfig?: { type: string; config: Record<string, string> };
  extraHosts: string[];
  tty: boolean;
  openStdin: boolean;
  stdinOnce: boolean;
  stopSignal?: string;
  stopTimeout?: number;
  /** `Config.NetworkDisabled`: Docker gives the container no network at all (its loopback only). */
  networkDisabled?: boolean;
  /**
   * Every other HostConfig setting Docker reported with a non-default value (sysctls, ulimits,
   * dns, security options, …), passed back unchanged so an update loses nothing.
   */
  otherHostConfig: Record<string, unknown>;
}

/** Registry credentials for one pull (the hub holds them; they are never logged). */
export interface RegistryPullAuth {
  username: string;
  password: string;
  /** The registry host as in the reference (`ghcr.io`, `127.0.0.1:5000`). */
  serverAddress: string;
}

export interface DockerImageSummary {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** Unix milliseconds. */
  createdAt: number;
  sizeBytes: number;
  /** How many containers use it (-1 when the Engine did not count). */
  containers: number;
}

/** Docker answered 409: a name is taken, or an image is in use. */
export class DockerConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DockerConflictError';
  }
}

/**
 * What updating containers needs beyond watching them. A host that can update containers
 * implements both interfaces; `canUpdateContainers` tells them apart (edge hosts cannot yet).
 */
export interface ContainerUpdateHost {
  /**
   * Pulls `reference` and answers the pulled image; a failed pull (unknown tag, refused credentials)
   * throws. `signal` (a caller's deadline or cancel) ends the wait: the call then throws, and the
   * Engine, whose client left, may still finish the pull on its own.
   */
  pullImage(reference: string, auth?: RegistryPullAuth, signal?: AbortSignal): Promise<DockerImageDetails>;
  /** Gives the image another name (`docker tag`); `reference` is `name:tag`. */
  tagImage(imageId: string, reference: string): Promise<void>;
  /** The container's configuration, as it must be created again; undefined when it is gone. */
  inspectContainerSpec(id: string): Promise<ContainerSpec | undefined>;
  /** Creates (does not start) a container from a spec, attached to every one of its networks; answers its id. */
  createContainer(spec: ContainerSpec): Promise<string>;
  /** Throws DockerNotFoundError, or DockerConflictError when the name is taken. */
  renameContainer(id: string, name: string): Promise<void>;
  /** Removes it whatever its state (running ones are killed). Gone already is not an error. */
  forceRemoveContainer(id: string): Promise<void>;
  listImages(): Promise<DockerImageSummary[]>;
  /** Throws DockerConflictError while a container uses it (never forced); gone already is not an error. */
  removeImage(reference: string): Promise<void>;
}

export type UpdatableDockerHost = DockerHost & ContainerUpdateHost;

/** A host that can pull images: an updatable one, or an edge agent's (`image.pull`), which cannot update yet. */
export function canPullImages(host: DockerHost): host is DockerHost & Pick<ContainerUpdateHost, 'pullImage'> {
  return typeof (host as Partial<ContainerUpdateHost>).pullImage === 'function';
}

export function canUpdateContainers(host: DockerHost): host is UpdatableDockerHost {
  const candidate = host as Partial<ContainerUpdateHost>;
  return typeof candidate.createContainer === 'function' && typeof candidate.pullImage === 'function';
}
