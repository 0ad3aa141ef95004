import type { DockerHost } from '../../../shared/docker/docker-host';

/**
 * A Docker host that passes every call to the real Engine client, except those `overrides` replace:
 * for tests that count or disturb one kind of call on a real daemon. It does not claim that its
 * events cover every change (`eventsCoverChanges`) unless the overrides say so.
 */
export function delegatingHost(real: DockerHost, overrides: Partial<DockerHost>): DockerHost {
  return {
    endpoint: real.endpoint,
    ping: () => real.ping(),
    listContainers: (all) => real.listContainers(all),
    inspectContainer: (id) => real.inspectContainer(id),
    inspectImage: (id) => real.inspectImage(id),
    subscribeEvents: (handlers) => real.subscribeEvents(handlers),
    logs: (id, options, signal) => real.logs(id, options, signal),
    start: (id) => real.start(id),
    stop: (id) => real.stop(id),
    restart: (id) => real.restart(id),
    remove: (id) => real.remove(id),
    stats: (id) => real.stats(id),
    close: () => real.close(),
    ...(real.exportImage && {
      exportImage: (imageId: string, signal: AbortSignal) =>
        (real.exportImage as NonNullable<DockerHost['exportImage']>).call(real, imageId, signal),
    }),
    ...overrides,
  };
}
