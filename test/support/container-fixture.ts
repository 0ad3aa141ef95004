import type { Container } from '../../shared/schemas/container';

/**
 * A valid container record (ContainerSchema) for tests that put records in a hub's store: a
 * running, watched `web` on the hub's own watcher `local`, image `docker.io/library/web:1.0.0`.
 */
export function containerRecord(over: Partial<Container> & { id?: string } = {}): Container {
  return {
    id: 'a'.repeat(64),
    name: 'web',
    displayName: over.name ?? 'web',
    watcher: 'local',
    status: 'running',
    watched: true,
    webhookEnabled: true,
    labels: {},
    env: [],
    image: {
      id: 'sha256:1',
      registry: { url: 'docker.io' },
      name: 'library/web',
      tag: { value: '1.0.0', semver: true },
      digest: { watch: false },
      architecture: 'amd64',
      os: 'linux',
    },
    updateAvailable: false,
    updateKind: { kind: 'unknown' },
    updatePolicy: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    firstSeenAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/** The record's image moved to another registry and repository. */
export function withImage(container: Container, registry: string, repository: string, tag = '1.0.0'): Container {
  return {
    ...container,
    image: { ...container.image, registry: { url: registry }, name: repository, tag: { value: tag, semver: true } },
  };
}
