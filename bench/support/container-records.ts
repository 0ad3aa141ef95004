import * as v from 'valibot';
import { createNodeStorage } from '../../hub/src/adapter/node/create-node-storage';
import { createContainerStore } from '../../hub/src/store/container-store';
import { CONTAINER_STATES } from '../../shared/docker/docker-host';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../shared/logging/logger';
import { type Container, ContainerSchema } from '../../shared/schemas/container';
import { mapLimit } from './map-limit';

const BASE_MS = Date.UTC(2025, 0, 1);
const HOSTS = ['local', 'edge-1', 'edge-2', 'edge-3'];
const SEMVER_DIFFS = ['major', 'minor', 'patch'] as const;

/** A small deterministic generator, so every run lists the same fleet. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

const hex = (random: () => number, length: number) =>
  Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

/**
 * `count` container records as a watch cycle stores them for a compose-managed fleet: compose and
 * OCI labels, a dozen environment entries (some secret), a registry result, a third with an update.
 * Each one is validated against ContainerSchema, the schema the store checks when it loads them.
 */
export function fleetRecords(count: number, seed = 0x5eed): Container[] {
  const random = lcg(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const records: Container[] = [];
  for (let i = 0; i < count; i++) {
    const project = `stack${i % 400}`;
    const service = `svc${Math.floor(i / 400)}`;
    const name = `${project}-${service}-1`;
    const repository = `acme/app${i % 60}`;
    const digest = `sha256:${hex(random, 64)}`;
    const semver = random() < 0.75;
    const tag = semver ? `1.${i % 7}.${i % 3}` : 'latest';
    const update = random() < 0.3;
    const digestUpdate = update && !semver;
    const remote = digestUpdate ? `sha256:${hex(random, 64)}` : `2.${i % 5}.0`;
    const labels: Record<string, string> = {
      'com.docker.compose.project': project,
      'com.docker.compose.service': service,
      'com.docker.compose.container-number': '1',
      'com.docker.compose.oneoff': 'False',
      'com.docker.compose.version': '2.29.1',
      'com.docker.compose.config-hash': hex(random, 64),
      'com.docker.compose.project.working_dir': `/srv/${project}`,
      'org.opencontainers.image.source': `https://github.com/${repository}`,
      'org.opencontainers.image.version': tag,
    };
    if (random() < 0.2) labels['dd.display.name'] = `${service} (${project})`;
    const created = BASE_MS + Math.floor(random() * 300 * 86_400_000);
    const record: Container = {
      id: hex(random, 64),
      name,
      watcher: pick(HOSTS),
      status: random() < 0.85 ? 'running' : pick(CONTAINER_STATES),
      displayName: labels['dd.display.name'] ?? name,
      group: project,
      watched: random() < 0.95,
      webhookEnabled: true,
      labels,
      env: [
        { key: 'PATH', value: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' },
        { key: 'TZ', value: 'Europe/Berlin' },
        { key: 'NODE_ENV', value: 'production' },
        { key: 'PORT', value: String(3000 + (i % 100)) },
        { key: 'LOG_LEVEL', value: 'info' },
        { key: 'DATABASE_URL', value: `postgres://app@db-${i % 20}:5432/app` },
        { key: 'DB_PASSWORD', value: hex(random, 24) },
        { key: 'API_TOKEN', value: hex(random, 32) },
        { key: 'REDIS_HOST', value: `redis-${i % 10}` },
        { key: 'FEATURE_FLAGS', value: 'a,b,c' },
        { key: 'LANG', value: 'C.UTF-8' },
        { key: 'HOME', value: '/home/app' },
      ],
      image: {
        id: `sha256:${hex(random, 64)}`,
        registry: { url: pick(['docker.io', 'ghcr.io', 'registry.example.com:5000']) },
        name: repository,
        tag: { value: tag, semver },
        digest: { watch: !semver, repo: digest },
        architecture: 'amd64',
        os: 'linux',
        created: new Date(created - 86_400_000).toISOString(),
      },
      ...(update && {
        result: {
          tag: digestUpdate ? tag : remote,
          ...(digestUpdate && { digest: remote }),
          publishedAtTrusted: false,
        },
      }),
      updateAvailable: update,
      updateKind: !update
        ? { kind: 'unknown' }
        : digestUpdate
          ? { kind: 'digest', localValue: digest, remoteValue: remote }
          : { kind: 'tag', localValue: tag, remoteValue: remote, semverDiff: pick(SEMVER_DIFFS) },
      ...(update && { updateMaturityLevel: pick(['hot', 'mature', 'established'] as const) }),
      updatePolicy: {},
      createdAt: new Date(created).toISOString(),
      firstSeenAt: new Date(created + 60_000).toISOString(),
      checkedAt: new Date(BASE_MS + 301 * 86_400_000).toISOString(),
    };
    records.push(v.parse(ContainerSchema, record));
  }
  return records;
}

/**
 * Writes the records into a new `fs` store under `dir` through the hub's own container store, as a
 * watch cycle would have; a hub started with DD_STORE_PATH=dir loads (and validates) them at start.
 */
export async function writeRecords(dir: string, records: readonly Container[]): Promise<void> {
  const { storage, close } = await createNodeStorage({ driver: 'fs', path: dir, url: undefined });
  try {
    const store = createContainerStore(
      storage,
      createLogger({ level: 'warn', ring: createLogRing(10), sink: silentSink }),
    );
    // Batches of 500, one group commit each, as an agent's snapshot is stored: 200,000 single writes
    // would be 200,000 directory syncs before the benchmark even starts.
    const batches: Container[][] = [];
    for (let start = 0; start < records.length; start += 500) batches.push(records.slice(start, start + 500));
    await mapLimit(batches, 4, (batch) => store.putMany(batch));
  } finally {
    await close();
  }
}
