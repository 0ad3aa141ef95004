/**
 * A container's configuration as the update engine re-creates it (shared ContainerSpec), from the
 * Engine's inspect of the container and of its image, and back to the Engine's create body.
 *
 * What the image provides (cmd, entrypoint, env, labels, user, working dir, healthcheck, exposed
 * ports) is kept only where the container differs from its image: those were set explicitly, and
 * everything else must come from the *new* image. Anonymous volumes are re-attached by name, so
 * their data survives the update as it does with `docker compose up`.
 */
import type { ContainerNetworkSpec, ContainerSpec } from '../../../shared/docker/docker-host';

/** The parts of `GET /containers/{id}/json` read here; the Engine sends `null` for empty lists and maps. */
export interface InspectedContainer {
  Id: string;
  Name: string;
  Config?: RawConfig | null;
  HostConfig?: Record<string, unknown> | null;
  Mounts?: RawMount[] | null;
  NetworkSettings?: { Networks?: Record<string, RawEndpoint | null> | null } | null;
}

/** The shared parts of a container's `Config` and an image's `Config`. */
export interface RawConfig {
  Hostname?: string;
  Domainname?: string;
  User?: string;
  Env?: string[] | null;
  Cmd?: string[] | null;
  Entrypoint?: string[] | string | null;
  Image?: string;
  Labels?: Record<string, string> | null;
  WorkingDir?: string;
  ExposedPorts?: Record<string, unknown> | null;
  Healthcheck?: RawHealthcheck | null;
  Tty?: boolean;
  OpenStdin?: boolean;
  StdinOnce?: boolean;
  StopSignal?: string;
  StopTimeout?: number | null;
  NetworkDisabled?: boolean;
}

interface RawHealthcheck {
  Test?: string[] | null;
  Interval?: number;
  Timeout?: number;
  StartPeriod?: number;
  Retries?: number;
}

interface RawMount {
  Type?: string;
  Name?: string;
  Destination?: string;
  RW?: boolean;
}

interface RawEndpoint {
  Aliases?: string[] | null;
  Links?: string[] | null;
  DriverOpts?: Record<string, string> | null;
  IPAMConfig?: { IPv4Address?: string; IPv6Address?: string } | null;
}

/** HostConfig keys the spec names (or deliberately drops); every other one goes to otherHostConfig. */
const TYPED_HOST_KEYS = new Set([
  'Binds',
  'Mounts',
  'Tmpfs',
  'PortBindings',
  'PublishAllPorts',
  'NetworkMode',
  'RestartPolicy',
  'Memory',
  'MemoryReservation',
  'MemorySwap',
  'NanoCpus',
  'CpuShares',
  'CpuQuota',
  'CpuPeriod',
  'CpusetCpus',
  'PidsLimit',
  'CapAdd',
  'CapDrop',
  'Devices',
  'Privileged',
  'Init',
  'LogConfig',
  'ExtraHosts',
  // The daemon fills these in itself (its defaults, the CLI's terminal size, a file the CLI wrote).
  'MaskedPaths',
  'ReadonlyPaths',
  'ConsoleSize',
  'ContainerIDFile',
]);

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const list = <T>(value: T[] | null | undefined): T[] => value ?? [];
const asStrings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
const positive = (value: unknown): number | undefined => (typeof value === 'number' && value > 0 ? value : undefined);
const entrypointOf = (value: RawConfig['Entrypoint']): string[] | undefined =>
  typeof value === 'string' ? [value] : (value ?? undefined);

/** A value Docker uses as "not set": leaving it out creates the same container. */
function isUnset(value: unknown): boolean {
  if (value === null || value === undefined || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

export function toContainerSpec(info: InspectedContainer, imageConfig: RawConfig | undefined): ContainerSpec {
  const config: RawConfig = info.Config ?? {};
  const image: RawConfig = imageConfig ?? {};
  const host = info.HostConfig ?? {};
  const spec: ContainerSpec = {
    name: info.Name.replace(/^\//, ''),
    image: config.Image ?? '',
    env: list(config.Env).filter((entry) => !list(image.Env).includes(entry)),
    labels: Object.fromEntries(
      Object.entries(config.Labels ?? {}).filter(([key, value]) => image.Labels?.[key] !== value),
    ),
    exposedPorts: Object.keys(config.ExposedPorts ?? {}).filter((port) => !(port in (image.ExposedPorts ?? {}))),
    portBindings: portBindingsOf(host['PortBindings']),
    publishAllPorts: host['PublishAllPorts'] === true,
    binds: bindsOf(asStrings(host['Binds']), host['Mounts'], list(info.Mounts)),
    mounts: Array.isArray(host['Mounts']) ? (host['Mounts'] as Record<string, unknown>[]) : [],
    tmpfs: (host['Tmpfs'] as Record<string, string> | null | undefined) ?? {},
    networkMode:
      typeof host['NetworkMode'] === 'string' && host['NetworkMode'] !== '' ? host['NetworkMode'] : 'default',
    networks: networksOf(info),
    restartPolicy: restartPolicyOf(host['RestartPolicy']),
    resources: resourcesOf(host),
    capAdd: asStrings(host['CapAdd']),
    capDrop: asStrings(host['CapDrop']),
    devices: devicesOf(host['Devices']),
    privileged: host['Privileged'] === true,
    extraHosts: asStrings(host['ExtraHosts']),
    tty: config.Tty === true,
    openStdin: config.OpenStdin === true,
    stdinOnce: config.StdinOnce === true,
    otherHostConfig: Object.fromEntries(
      Object.entries(host).filter(([key, value]) => !TYPED_HOST_KEYS.has(key) && !isUnset(value)),
    ),
  };
  Object.assign(spec, commandOf(config, image));
  if (config.User && config.User !== image.User) spec.user = config.User;
  if (config.WorkingDir && config.WorkingDir !== image.WorkingDir) spec.workingDir = config.WorkingDir;
  // Docker names a container's host after its short id unless told otherwise.
  if (config.Hostname && config.Hostname !== info.Id.slice(0, 12)) spec.hostname = config.Hostname;
  if (config.Domainname) spec.domainname = config.Domainname;
  const healthcheck = config.Healthcheck;
  if (healthcheck?.Test && !sameJson(healthcheck, image.Healthcheck)) {
    spec.healthcheck = {
      test: healthcheck.Test,
      ...(healthcheck.Interval ? { intervalNs: healthcheck.Interval } : {}),
      ...(healthcheck.Timeout ? { timeoutNs: healthcheck.Timeout } : {}),
      ...(healthcheck.StartPeriod ? { startPeriodNs: healthcheck.StartPeriod } : {}),
      ...(healthcheck.Retries ? { retries: healthcheck.Retries } : {}),
    };
  }
  if (typeof host['Init'] === 'boolean') spec.init = host['Init'];
  const logConfig = host['LogConfig'] as { Type?: string; Config?: Record<string, string> | null } | null | undefined;
  if (logConfig?.Type) spec.logConfig = { type: logConfig.Type, config: logConfig.Config ?? {} };
  if (config.StopSignal && config.StopSignal !== image.StopSignal) spec.stopSignal = config.StopSignal;
  if (typeof config.StopTimeout === 'number') spec.stopTimeout = config.StopTimeout;
  if (config.NetworkDisabled === true) spec.networkDisabled = true;
  return spec;
}

/**
 * Docker merges the image's command only when the container sets neither: an explicit entrypoint
 * drops the image's cmd. So an entrypoint of its own keeps the container's cmd as it is.
 */
function commandOf(config: RawConfig, image: RawConfig): Pick<ContainerSpec, 'cmd' | 'entrypoint'> {
  const entrypoint = entrypointOf(config.Entrypoint);
  const explicitEntrypoint = entrypoint !== undefined && !sameJson(entrypoint, entrypointOf(image.Entrypoint));
  const cmd = config.Cmd ?? undefined;
  if (explicitEntrypoint) return { entrypoint, ...(cmd ? { cmd } : {}) };
  return cmd && !sameJson(cmd, image.Cmd) ? { cmd } : {};
}

function portBindingsOf(raw: unknown): ContainerSpec['portBindings'] {
  const out: ContainerSpec['portBindings'] = {};
  for (const [port, bindings] of Object.entries((raw as Record<string, unknown> | null) ?? {})) {
    out[port] = (Array.isArray(bindings) ? bindings : []).map((binding: { HostIp?: string; HostPort?: string }) => ({
      hostIp: binding.HostIp ?? '',
      hostPort: binding.HostPort ?? '',
    }));
  }
  return out;
}

/** The bind's target path: `src:dst[:opts]`, or a bare `dst` (an anonymous volume). */
function bindTarget(bind: string): string {
  const parts = bind.split(':');
  return (parts.length === 1 ? parts[0] : parts[1]) ?? '';
}

/** Binds as given, plus every volume mount they and `--mount` do not cover: the anonymous volumes, by name. */
function bindsOf(binds: string[], hostMounts: unknown, mounts: RawMount[]): string[] {
  const covered = new Set(binds.map(bindTarget));
  if (Array.isArray(hostMounts))
    for (const mount of hostMounts as { Target?: string }[]) if (mount.Target) covered.add(mount.Target);
  const anonymous = mounts
    .filter((mount) => mount.Type === 'volume' && mount.Name && mount.Destination && !covered.has(mount.Destination))
    .map((mount) => `${mount.Name}:${mount.Destination}${mount.RW === false ? ':ro' : ''}`);
  return [...binds, ...anonymous];
}

/** `host`, `none` and `container:<id>` have no endpoints to re-create; every other mode lists its networks. */
function networksOf(info: InspectedContainer): ContainerNetworkSpec[] {
  const mode = (info.HostConfig?.['NetworkMode'] as string | undefined) ?? 'default';
  if (mode === 'host' || mode === 'none' || mode.startsWith('container:')) return [];
  const shortId = info.Id.slice(0, 12);
  return Object.entries(info.NetworkSettings?.Networks ?? {}).map(([name, endpoint]) => {
    const network: ContainerNetworkSpec = {
      name,
      aliases: list(endpoint?.Aliases).filter((alias) => alias !== shortId && alias !== info.Id),
    };
    const ipam = endpoint?.IPAMConfig;
    if (ipam?.IPv4Address) network.ipv4Address = ipam.IPv4Address;
    if (ipam?.IPv6Address) network.ipv6Address = ipam.IPv6Address;
    if (endpoint?.Links?.length) network.links = endpoint.Links;
    if (endpoint?.DriverOpts && Object.keys(endpoint.DriverOpts).length > 0) network.driverOpts = endpoint.DriverOpts;
    return network;
  });
}

function restartPolicyOf(raw: unknown): ContainerSpec['restartPolicy'] {
  const policy = (raw ?? {}) as { Name?: string; MaximumRetryCount?: number };
  return { name: policy.Name ?? '', maximumRetryCount: policy.MaximumRetryCount ?? 0 };
}

function resourcesOf(host: Record<string, unknown>): ContainerSpec['resources'] {
  const resources: ContainerSpec['resources'] = {};
  const numbers = {
    memory: 'Memory',
    memoryReservation: 'MemoryReservation',
    memorySwap: 'MemorySwap',
    nanoCpus: 'NanoCpus',
    cpuShares: 'CpuShares',
    cpuQuota: 'CpuQuota',
    cpuPeriod: 'CpuPeriod',
    pidsLimit: 'PidsLimit',
  } as const;
  for (const [field, key] of Object.entries(numbers) as [keyof typeof numbers, string][]) {
    const value = positive(host[key]);
    if (value !== undefined) resources[field] = value;
  }
  // -1 is "unlimited swap", a setting of its own.
  if (host['MemorySwap'] === -1) resources.memorySwap = -1;
  if (typeof host['CpusetCpus'] === 'string' && host['CpusetCpus'] !== '') resources.cpusetCpus = host['CpusetCpus'];
  return resources;
}

function devicesOf(raw: unknown): ContainerSpec['devices'] {
  if (!Array.isArray(raw)) return [];
  return raw.map((device: { PathOnHost?: string; PathInContainer?: string; CgroupPermissions?: string }) => ({
    pathOnHost: device.PathOnHost ?? '',
    pathInContainer: device.PathInContainer ?? '',
    cgroupPermissions: device.CgroupPermissions ?? 'rwm',
  }));
}

export interface CreateRequest {
  /** The body of `POST /containers/create?name=…`, with the first network's endpoint. */
  body: Record<string, unknown>;
  /** Networks to connect after create, before start: Engine API 1.41 takes one endpoint at create. */
  laterNetworks: ContainerNetworkSpec[];
}

function endpointOf(network: ContainerNetworkSpec): Record<string, unknown> {
  return {
    ...(network.aliases.length > 0 && { Aliases: network.aliases }),
    ...(network.links && { Links: network.links }),
    ...(network.driverOpts && { DriverOpts: network.driverOpts }),
    ...((network.ipv4Address || network.ipv6Address) && {
      IPAMConfig: {
        ...(network.ipv4Address && { IPv4Address: network.ipv4Address }),
        ...(network.ipv6Address && { IPv6Address: network.ipv6Address }),
      },
    }),
  };
}

export function toCreateRequest(spec: ContainerSpec): CreateRequest {
  // The network named by the mode is attached at create; with `default`/`bridge` it is the bridge.
  const primary = spec.networks.find((network) => network.name === spec.networkMode) ?? spec.networks[0];
  const networkMode = spec.networkMode === 'default' && primary ? primary.name : spec.networkMode;
  const { resources } = spec;
  const hostConfig: Record<string, unknown> = {
    ...spec.otherHostConfig,
    Binds: spec.binds,
    ...(spec.mounts.length > 0 && { Mounts: spec.mounts }),
    ...(Object.keys(spec.tmpfs).length > 0 && { Tmpfs: spec.tmpfs }),
    PortBindings: Object.fromEntries(
      Object.entries(spec.portBindings).map(([port, bindings]) => [
        port,
        bindings.map((b) => ({ HostIp: b.hostIp, HostPort: b.hostPort })),
      ]),
    ),
    PublishAllPorts: spec.publishAllPorts,
    NetworkMode: networkMode,
    RestartPolicy: { Name: spec.restartPolicy.name, MaximumRetryCount: spec.restartPolicy.maximumRetryCount },
    ...(resources.memory !== undefined && { Memory: resources.memory }),
    ...(resources.memoryReservation !== undefined && { MemoryReservation: resources.memoryReservation }),
    ...(resources.memorySwap !== undefined && { MemorySwap: resources.memorySwap }),
    ...(resources.nanoCpus !== undefined && { NanoCpus: resources.nanoCpus }),
    ...(resources.cpuShares !== undefined && { CpuShares: resources.cpuShares }),
    ...(resources.cpuQuota !== undefined && { CpuQuota: resources.cpuQuota }),
    ...(resources.cpuPeriod !== undefined && { CpuPeriod: resources.cpuPeriod }),
    ...(resources.cpusetCpus !== undefined && { CpusetCpus: resources.cpusetCpus }),
    ...(resources.pidsLimit !== undefined && { PidsLimit: resources.pidsLimit }),
    CapAdd: spec.capAdd,
    CapDrop: spec.capDrop,
    Devices: spec.devices.map((d) => ({
      PathOnHost: d.pathOnHost,
      PathInContainer: d.pathInContainer,
      CgroupPermissions: d.cgroupPermissions,
    })),
    Privileged: spec.privileged,
    ...(spec.init !== undefined && { Init: spec.init }),
    ...(spec.logConfig && { LogConfig: { Type: spec.logConfig.type, Config: spec.logConfig.config } }),
    ExtraHosts: spec.extraHosts,
  };
  const healthcheck = spec.healthcheck;
  const body: Record<string, unknown> = {
    Image: spec.image,
    Env: spec.env,
    Labels: spec.labels,
    ...(spec.cmd && { Cmd: spec.cmd }),
    ...(spec.entrypoint && { Entrypoint: spec.entrypoint }),
    ...(spec.user !== undefined && { User: spec.user }),
    ...(spec.workingDir !== undefined && { WorkingDir: spec.workingDir }),
    ...(spec.hostname !== undefined && { Hostname: spec.hostname }),
    ...(spec.domainname !== undefined && { Domainname: spec.domainname }),
    ExposedPorts: Object.fromEntries(
      [...spec.exposedPorts, ...Object.keys(spec.portBindings)].map((port) => [port, {}]),
    ),
    ...(healthcheck && {
      Healthcheck: {
        Test: healthcheck.test,
        ...(healthcheck.intervalNs !== undefined && { Interval: healthcheck.intervalNs }),
        ...(healthcheck.timeoutNs !== undefined && { Timeout: healthcheck.timeoutNs }),
        ...(healthcheck.startPeriodNs !== undefined && { StartPeriod: healthcheck.startPeriodNs }),
        ...(healthcheck.retries !== undefined && { Retries: healthcheck.retries }),
      },
    }),
    Tty: spec.tty,
    OpenStdin: spec.openStdin,
    StdinOnce: spec.stdinOnce,
    ...(spec.stopSignal !== undefined && { StopSignal: spec.stopSignal }),
    ...(spec.stopTimeout !== undefined && { StopTimeout: spec.stopTimeout }),
    ...(spec.networkDisabled === true && { NetworkDisabled: true }),
    HostConfig: hostConfig,
    ...(primary && { NetworkingConfig: { EndpointsConfig: { [primary.name]: endpointOf(primary) } } }),
  };
  return { body, laterNetworks: spec.networks.filter((network) => network !== primary) };
}

export { endpointOf };
