import type { ContainerSpec } from '../../../shared/docker/docker-host';

/**
 * A container of a pod, created again through the libpod API (`POST /libpod/containers/create`
 * with `pod`): Podman's Docker-compatible create cannot put a container in a pod, and refuses one
 * that joins the pod's namespaces from outside ("containers not in pods cannot depend on containers
 * in pods", 4.3.1). The pod holds the network, ports, host name, /etc/hosts and DNS; the container
 * brings the rest, mapped here onto Podman's SpecGenerator.
 *
 * What this mapping does not carry is refused (an Error naming it) rather than dropped: the update
 * then fails before the old container is touched, instead of losing a mount or a device.
 */
export type PodSpecGenerator = Record<string, unknown>;

/** HostConfig keys a pod member reports that come from its pod or are Podman's defaults. */
const POD_OWNED = new Set([
  'IpcMode',
  'PidMode',
  'UTSMode',
  'CgroupnsMode',
  'CgroupParent',
  'UsernsMode',
  'ShmSize',
  'Runtime',
  'Dns',
  'DnsOptions',
  'DnsSearch',
]);

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGTERM: 15,
};

function signalNumber(signal: string): number | undefined {
  const numeric = Number(signal);
  if (Number.isInteger(numeric) && numeric > 0) return numeric;
  const name = signal.toUpperCase();
  return SIGNALS[name.startsWith('SIG') ? name : `SIG${name}`];
}

/** `volume:/path[:opts]` and `/host:/path[:opts]`, as Docker's Binds hold them. */
function storageOf(binds: readonly string[]) {
  const mounts: Record<string, unknown>[] = [];
  const volumes: Record<string, unknown>[] = [];
  for (const bind of binds) {
    const [source = '', destination = '', options = ''] = bind.split(':');
    const list = options ? options.split(',') : [];
    if (source.startsWith('/')) mounts.push({ type: 'bind', source, destination, options: ['rbind', ...list] });
    else volumes.push({ Name: source, Dest: destination, Options: list });
  }
  return { mounts, volumes };
}

function unsupported(spec: ContainerSpec): string[] {
  const found: string[] = [];
  if (spec.mounts.length > 0) found.push('--mount entries');
  if (Object.keys(spec.tmpfs).length > 0) found.push('tmpfs mounts');
  if (spec.devices.length > 0) found.push('devices');
  if (spec.resources.nanoCpus !== undefined) found.push('--cpus');
  if (spec.stopSignal !== undefined && signalNumber(spec.stopSignal) === undefined) found.push('its stop signal');
  for (const key of Object.keys(spec.otherHostConfig)) if (!POD_OWNED.has(key)) found.push(`HostConfig.${key}`);
  return found;
}

export function toPodSpecGenerator(spec: ContainerSpec, pod: string): PodSpecGenerator {
  const refused = unsupported(spec);
  if (refused.length > 0) {
    throw new Error(
      `cannot re-create ${spec.name} in the pod ${pod}: not carried by this re-creation: ${refused.join(', ')}`,
    );
  }
  const { resources, healthcheck } = spec;
  const memory = {
    ...(resources.memory !== undefined && { limit: resources.memory }),
    ...(resources.memoryReservation !== undefined && { reservation: resources.memoryReservation }),
    ...(resources.memorySwap !== undefined && { swap: resources.memorySwap }),
  };
  const cpu = {
    ...(resources.cpuShares !== undefined && { shares: resources.cpuShares }),
    ...(resources.cpuQuota !== undefined && { quota: resources.cpuQuota }),
    ...(resources.cpuPeriod !== undefined && { period: resources.cpuPeriod }),
    ...(resources.cpusetCpus !== undefined && { cpus: resources.cpusetCpus }),
  };
  const limits = {
    ...(Object.keys(memory).length > 0 && { memory }),
    ...(Object.keys(cpu).length > 0 && { cpu }),
    ...(resources.pidsLimit !== undefined && { pids: { limit: resources.pidsLimit } }),
  };
  const env = Object.fromEntries(
    spec.env.map((entry) => {
      const eq = entry.indexOf('=');
      return eq === -1 ? [entry, ''] : [entry.slice(0, eq), entry.slice(eq + 1)];
    }),
  );
  return {
    name: spec.name,
    pod,
    image: spec.image,
    ...(spec.entrypoint && { entrypoint: spec.entrypoint }),
    ...(spec.cmd && { command: spec.cmd }),
    env,
    labels: spec.labels,
    ...(spec.user !== undefined && { user: spec.user }),
    ...(spec.workingDir !== undefined && { work_dir: spec.workingDir }),
    terminal: spec.tty,
    stdin: spec.openStdin,
    ...(spec.stopSignal !== undefined && { stop_signal: signalNumber(spec.stopSignal) }),
    ...(spec.stopTimeout !== undefined && { stop_timeout: spec.stopTimeout }),
    ...(spec.restartPolicy.name && { restart_policy: spec.restartPolicy.name }),
    ...(spec.restartPolicy.name === 'on-failure' && { restart_tries: spec.restartPolicy.maximumRetryCount }),
    privileged: spec.privileged,
    cap_add: spec.capAdd,
    cap_drop: spec.capDrop,
    ...storageOf(spec.binds),
    ...(healthcheck && {
      healthconfig: {
        Test: healthcheck.test,
        ...(healthcheck.intervalNs !== undefined && { Interval: healthcheck.intervalNs }),
        ...(healthcheck.timeoutNs !== undefined && { Timeout: healthcheck.timeoutNs }),
        ...(healthcheck.startPeriodNs !== undefined && { StartPeriod: healthcheck.startPeriodNs }),
        ...(healthcheck.retries !== undefined && { Retries: healthcheck.retries }),
      },
    }),
    ...(Object.keys(limits).length > 0 && { resource_limits: limits }),
    ...(spec.logConfig && { log_configuration: { driver: spec.logConfig.type, options: spec.logConfig.config } }),
  };
}
