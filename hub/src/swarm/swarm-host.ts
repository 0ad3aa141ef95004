import type { DockerContainerDetails, DockerHost, DockerImageDetails } from '../../../shared/docker/docker-host';
import type { SwarmEngine, SwarmService } from '../../../shared/docker/swarm-engine';
import { errorMessage } from '../../../shared/error-message';
import { parseImageReference } from '../../../shared/registry/image-reference';

/** The labels that say what a record is: shown with it, never read as policy. */
export const SWARM_LABELS = { mode: 'dockwatch.swarm.mode', pinned: 'dockwatch.swarm.image' };

/** `name:tag@sha256:…` as Swarm pins a service's image, and the reference without the pin. */
export function unpinnedImage(image: string): { reference: string; digest: string | undefined } {
  const at = image.indexOf('@');
  if (at === -1) return { reference: image, digest: undefined };
  return { reference: image.slice(0, at), digest: image.slice(at + 1) };
}

function detailsOf(service: SwarmService): DockerContainerDetails {
  const pinned = service.Spec.TaskTemplate.ContainerSpec?.Image ?? '';
  const { reference } = unpinnedImage(pinned);
  return {
    id: service.ID,
    name: service.Spec.Name,
    image: reference,
    // The pinned reference stands in for an image id: the service's image lives on its nodes.
    imageId: pinned,
    state: 'running',
    labels: {
      ...service.Spec.Labels,
      [SWARM_LABELS.mode]: service.Spec.Mode?.Global ? 'global' : 'replicated',
      [SWARM_LABELS.pinned]: pinned,
    },
    createdAt: service.CreatedAt ? Date.parse(service.CreatedAt) : 0,
    env: [],
    restartCount: 0,
  };
}

const refused = (what: string) => async () => {
  throw new Error(`${what}: a swarm service is not a container; manage it through its manager`);
};

/** The watcher's host of a swarm watcher: its services as containers, and the manager's API for updates (swarm-update.ts). */
export interface SwarmHost extends DockerHost {
  readonly swarm: SwarmEngine;
}

export function isSwarmHost(host: DockerHost): host is SwarmHost {
  return 'swarm' in host;
}

/**
 * A DockerHost made of a Swarm manager's services (docs/sources.md), so that they go through the
 * same watcher as containers: one registry lookup per reference across the fleet, the same dd.*
 * labels (the service's own, Spec.Labels), policies, notifications and API. A service's image is
 * read without the `@sha256:` pin Swarm adds; the pin is the digest it runs.
 */
export function createSwarmHost(engine: SwarmEngine, watcherId: string): SwarmHost {
  async function services(): Promise<SwarmService[]> {
    try {
      return await engine.listServices();
    } catch (error) {
      const message = errorMessage(error);
      const notManager = /not a swarm manager|not part of a swarm|swarm init/i.test(message);
      throw new Error(
        notManager
          ? `${watcherId}: the Engine at ${engine.endpoint} is not a swarm manager (${message.slice(0, 200)})`
          : `${watcherId}: cannot list the services of ${engine.endpoint}: ${message.slice(0, 300)}`,
      );
    }
  }
  return {
    swarm: engine,
    endpoint: engine.endpoint,
    async ping() {
      await services();
    },
    async listContainers() {
      return (await services()).map((service) => {
        const { env: _env, restartCount: _restarts, ...summary } = detailsOf(service);
        return summary;
      });
    },
    async inspectContainer(id) {
      const service = (await services()).find((each) => each.ID === id);
      return service && detailsOf(service);
    },
    async inspectImage(pinned): Promise<DockerImageDetails | undefined> {
      const { reference, digest } = unpinnedImage(pinned);
      try {
        parseImageReference(reference);
      } catch {
        return undefined;
      }
      const repository = reference.replace(/:[^/:]+$/, '');
      return {
        id: pinned,
        repoTags: [reference],
        repoDigests: digest ? [`${repository}@${digest}`] : [],
        os: 'linux',
        architecture: 'amd64',
      };
    },
    // Services change between cycles only: each cycle lists them again.
    subscribeEvents: () => ({ close: () => undefined }),
    logs: () => {
      throw new Error(`${watcherId}: a swarm service's logs are its tasks'; read them on the manager`);
    },
    start: refused(watcherId),
    stop: refused(watcherId),
    restart: refused(watcherId),
    remove: refused(watcherId),
    stats: refused(watcherId),
    close: () => engine.close(),
  };
}
