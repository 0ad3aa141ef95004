import type { DockerContainerDetails, DockerHost, DockerImageDetails } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import { parseImageReference } from '../../../shared/registry/image-reference';

/** A Swarm service as the Engine API's GET /services answers it, the fields the hub reads. */
export interface SwarmService {
  ID: string;
  CreatedAt?: string;
  Spec: {
    Name: string;
    Labels?: Record<string, string>;
    TaskTemplate: { ContainerSpec?: { Image?: string } };
    Mode?: { Replicated?: { Replicas?: number }; Global?: object };
  };
  UpdateStatus?: { State?: string; Message?: string };
}

/** What the swarm watcher needs of a manager's Engine API (Node: hub/src/adapter/node/swarm-engine.ts). */
export interface SwarmEngine {
  /** `unix:///var/run/docker.sock`, `http://manager:2375`. */
  readonly endpoint: string;
  /** GET /services; throws the Engine's error (503 "not a swarm manager" on a worker or a non-swarm engine). */
  listServices(): Promise<SwarmService[]>;
  close(): Promise<void>;
}

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

/**
 * A DockerHost made of a Swarm manager's services (docs/sources.md), so that they go through the
 * same watcher as containers: one registry lookup per reference across the fleet, the same dd.*
 * labels (the service's own, Spec.Labels), policies, notifications and API. A service's image is
 * read without the `@sha256:` pin Swarm adds; the pin is the digest it runs.
 */
export function createSwarmHost(engine: SwarmEngine, watcherId: string): DockerHost {
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
