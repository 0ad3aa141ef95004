import * as v from 'valibot';
import type { ContainerSpec } from './docker-host';

const strings = v.array(v.string());
const stringMap = v.record(v.string(), v.string());
const count = v.pipe(v.number(), v.integer());

const NetworkSchema = v.object({
  name: v.string(),
  aliases: strings,
  ipv4Address: v.exactOptional(v.string()),
  ipv6Address: v.exactOptional(v.string()),
  links: v.exactOptional(strings),
  driverOpts: v.exactOptional(stringMap),
});

/** ContainerSpec (shared/docker/docker-host.ts) as stored in operations and backups, and as it crosses the edge protocol. */
export const ContainerSpecSchema = v.object({
  name: v.string(),
  image: v.string(),
  cmd: v.exactOptional(strings),
  entrypoint: v.exactOptional(strings),
  env: strings,
  labels: stringMap,
  user: v.exactOptional(v.string()),
  workingDir: v.exactOptional(v.string()),
  hostname: v.exactOptional(v.string()),
  domainname: v.exactOptional(v.string()),
  exposedPorts: strings,
  portBindings: v.record(v.string(), v.array(v.object({ hostIp: v.string(), hostPort: v.string() }))),
  publishAllPorts: v.boolean(),
  binds: strings,
  mounts: v.array(v.record(v.string(), v.unknown())),
  tmpfs: stringMap,
  networkMode: v.string(),
  networks: v.array(NetworkSchema),
  restartPolicy: v.object({ name: v.string(), maximumRetryCount: count }),
  healthcheck: v.exactOptional(
    v.object({
      test: strings,
      intervalNs: v.exactOptional(count),
      timeoutNs: v.exactOptional(count),
      startPeriodNs: v.exactOptional(count),
      retries: v.exactOptional(count),
    }),
  ),
  resources: v.object({
    memory: v.exactOptional(count),
    memoryReservation: v.exactOptional(count),
    memorySwap: v.exactOptional(count),
    nanoCpus: v.exactOptional(count),
    cpuShares: v.exactOptional(count),
    cpuQuota: v.exactOptional(count),
    cpuPeriod: v.exactOptional(count),
    cpusetCpus: v.exactOptional(v.string()),
    pidsLimit: v.exactOptional(count),
  }),
  capAdd: strings,
  capDrop: strings,
  devices: v.array(v.object({ pathOnHost: v.string(), pathInContainer: v.string(), cgroupPermissions: v.string() })),
  privileged: v.boolean(),
  init: v.exactOptional(v.boolean()),
  logConfig: v.exactOptional(v.object({ type: v.string(), config: stringMap })),
  extraHosts: strings,
  tty: v.boolean(),
  openStdin: v.boolean(),
  stdinOnce: v.boolean(),
  stopSignal: v.exactOptional(v.string()),
  stopTimeout: v.exactOptional(count),
  networkDisabled: v.exactOptional(v.boolean()),
  otherHostConfig: v.record(v.string(), v.unknown()),
});

// The schema and the interface must describe the same data: a drift fails to compile here.
type SchemaSpec = v.InferOutput<typeof ContainerSpecSchema>;
export const specMatchesSchema: [
  SchemaSpec extends ContainerSpec ? true : false,
  ContainerSpec extends SchemaSpec ? true : false,
] = [true, true];
