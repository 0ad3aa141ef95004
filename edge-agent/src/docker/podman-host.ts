/**
 * A Podman service's Docker-compatible socket (`podman system service`) as a DockerHost: the Docker
 * host over that socket, with what Podman does differently (docs/sources.md "Podman"), as seen on
 * Podman 4.3.1 (Debian 12):
 * - Pods: the compatible list and inspect do not say which pod a container is in. One
 *   `GET /libpod/pods/json` per listing does; a pod's containers are labelled with it and grouped
 *   by it (shared/podman/podman-labels.ts), and its infra container (Podman's own pause process)
 *   is left out of the inventory.
 * - `io.containers.autoupdate` is read as the dd.* policy it names; `localhost/` images are not
 *   checked against a registry (shared/podman/podman-labels.ts).
 * - Short names: Podman resolves them when it creates the container (unqualified-search-registries)
 *   and reports the qualified name (`docker.io/library/alpine:latest`, `localhost/app:1`) in the list
 *   and in `Config.Image`; that is the name used here, as it is the image the container runs.
 * - Re-creation: the compatible inspect reports defaults Podman adds as the container's own
 *   (podman-spec.ts); they are left out of the spec. A pod's container is created again in its pod
 *   through the libpod API (podman-pod-create.ts), which the compatible create cannot do.
 * - Health checks run from systemd timers: without systemd, a `starting` container's check is run
 *   through libpod when one is due, as its inspect is asked for (podman-healthcheck.ts).
 * The rest answers as Docker does for what the hub uses (podman-host.test.ts; the integration test
 * test/integration/podman-watcher.test.ts runs against a real Podman).
 */
import type Docker from 'dockerode';
// The host's types through one namespace: this file implements the whole interface, as dockerode-host does.
import type * as Engine from '../../../shared/docker/docker-host';
import { DockerConflictError } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import { type PodMembership, podMemberships, podmanLabels } from '../../../shared/podman/podman-labels';
import { DEFAULT_PODMAN_SOCKET } from '../../../shared/podman/podman-watcher-config';
import { createDockerHost, createEngineClient, type DockerHostOptions } from './dockerode-host';
import { createHealthcheckDriver, type HealthcheckApi, type HealthcheckDriver } from './podman-healthcheck';
import { type PodSpecGenerator, toPodSpecGenerator } from './podman-pod-create';
import { imageHealthcheck, withoutPodmanDefaults } from './podman-spec';

/** The libpod calls the host makes beside the Docker API. */
export interface LibpodApi extends HealthcheckApi {
  /** `GET /libpod/pods/json`, the raw answer (podMemberships validates it). */
  listPods(): Promise<unknown>;
  /** `POST /libpod/containers/create`; answers the new container's id. */
  createContainer(body: PodSpecGenerator): Promise<string>;
  /** `GET /libpod/images/{id}/json`, the raw answer (imageHealthcheck validates it). */
  inspectImage(id: string): Promise<unknown>;
}

// The libpod API answers under a version prefix only (Podman 4.3.1: `/libpod/…` alone is 404).
const LIBPOD = '/v4.0.0/libpod';
// A container id or name; anything else (a `/` or `..` above all) would address another endpoint.
const CONTAINER_REF = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
// An image id as the compatible inspect reports it (`sha256:<hex>`), or its hex alone.
const IMAGE_ID = /^(?:sha256:)?([a-f0-9]{64})$/;

function containerPath(id: string, what: 'json' | 'healthcheck'): string {
  if (!CONTAINER_REF.test(id)) throw new Error(`libpod: not a container id: ${JSON.stringify(id)}`);
  return `${LIBPOD}/containers/${id}/${what}?`;
}

function imagePath(id: string): string {
  const hex = IMAGE_ID.exec(id)?.[1];
  if (!hex) throw new Error(`libpod: not an image id: ${JSON.stringify(id)}`);
  return `${LIBPOD}/images/${hex}/json?`;
}

export function createPodmanHost(options: DockerHostOptions = {}): Engine.UpdatableDockerHost {
  const engineOptions = { ...options, socketPath: options.socketPath ?? DEFAULT_PODMAN_SOCKET };
  const { docker } = createEngineClient(engineOptions);
  return new PodmanHost(createDockerHost(engineOptions), {
    listPods: () => libpodCall(docker, 'GET', `${LIBPOD}/pods/json?`),
    createContainer: async (body) => {
      const created = (await libpodCall(docker, 'POST', `${LIBPOD}/containers/create?`, body)) as { Id?: unknown };
      if (typeof created?.Id !== 'string') throw new Error('libpod create answered without an Id');
      return created.Id;
    },
    inspectContainer: (id) => libpodCall(docker, 'GET', containerPath(id, 'json')),
    inspectImage: (id) => libpodCall(docker, 'GET', imagePath(id)),
    runHealthcheck: async (id) => {
      await libpodCall(docker, 'GET', containerPath(id, 'healthcheck'));
    },
  });
}

function libpodCall(docker: Docker, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const statusCodes = {
      200: true,
      201: true,
      400: 'bad parameter',
      404: 'not found (is this a Podman socket?)',
      409: 'conflict',
      500: 'server error',
    };
    docker.modem.dial(
      // A POST's options are its JSON body (as dockerode's createContainer sends them).
      { path, method, options: body ?? {}, statusCodes },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

export class PodmanHost implements Engine.UpdatableDockerHost {
  readonly endpoint: string;
  readonly eventsCoverChanges: boolean;
  /** Pod of each container, from the last pods answer; a container joins a pod only when it is created. */
  private members = new Map<string, PodMembership>();
  /** Containers that existed when the pods were last asked: one missing from `members` is in no pod. */
  private known = new Set<string>();
  private readonly healthchecks: HealthcheckDriver;

  constructor(
    private readonly engine: Engine.UpdatableDockerHost,
    private readonly libpod: LibpodApi,
    now: () => number = Date.now,
  ) {
    this.endpoint = engine.endpoint;
    this.eventsCoverChanges = engine.eventsCoverChanges ?? false;
    this.healthchecks = createHealthcheckDriver(libpod, now);
  }

  async listContainers(all: boolean): Promise<Engine.DockerContainerSummary[]> {
    // The pods are asked after the list: every container listed is then known to them.
    const listed = await this.engine.listContainers(all);
    await this.refreshPods(listed.map((container) => container.id));
    return listed.flatMap((container) => this.withPod(container));
  }

  async inspectContainer(id: string): Promise<Engine.DockerContainerDetails | undefined> {
    let details = await this.engine.inspectContainer(id);
    // No systemd timer may ever run its check (podman-healthcheck.ts): run it, and answer its outcome.
    if (details?.health === 'starting' && (await this.healthchecks.runIfDue(details.id)))
      details = await this.engine.inspectContainer(id);
    if (!details) return undefined;
    // Created since the pods were last asked (an event names it): ask again, once.
    if (!this.known.has(details.id)) await this.refreshPods([...this.known, details.id]);
    return this.withPod(details)[0];
  }

  /** None for a pod's infra container: Podman's own, it is not in the inventory. */
  private withPod<T extends Engine.DockerContainerSummary>(container: T): T[] {
    const membership = this.members.get(container.id);
    if (membership?.infra) return [];
    return [{ ...container, labels: podmanLabels(container.labels, container.image, membership) }];
  }

  /** `ids`: the containers that exist now besides the pods' (a listing's replace the ones known before). */
  private async refreshPods(ids: readonly string[]): Promise<void> {
    let raw: unknown;
    try {
      raw = await this.libpod.listPods();
    } catch (error) {
      throw new Error(`podman(${this.endpoint}): list pods: ${errorMessage(error).trim()}`, { cause: error });
    }
    this.members = podMemberships(raw);
    this.known = new Set([...ids, ...this.members.keys()]);
  }

  async inspectContainerSpec(id: string): Promise<Engine.ContainerSpec | undefined> {
    const spec = await this.engine.inspectContainerSpec(id);
    if (!spec) return undefined;
    // The compatible image inspect has no health check: libpod's says whether the container's is the image's.
    return withoutPodmanDefaults(spec, spec.healthcheck && (await this.imageHealthcheckOf(id)));
  }

  private async imageHealthcheckOf(id: string): Promise<Engine.ContainerHealthcheckSpec | undefined> {
    const details = await this.engine.inspectContainer(id);
    if (!details) return undefined;
    try {
      return imageHealthcheck(await this.libpod.inspectImage(details.imageId));
    } catch (error) {
      const message = `podman(${this.endpoint}): inspect image ${details.imageId}: ${errorMessage(error).trim()}`;
      throw new Error(message, { cause: error });
    }
  }

  ping(): Promise<void> {
    return this.engine.ping();
  }

  inspectImage(id: string): Promise<Engine.DockerImageDetails | undefined> {
    return this.engine.inspectImage(id);
  }

  subscribeEvents(handlers: Engine.DockerEventHandlers): Engine.DockerSubscription {
    return this.engine.subscribeEvents(handlers);
  }

  logs(id: string, options: Engine.DockerLogOptions, signal: AbortSignal): AsyncIterable<Engine.DockerLogLine> {
    return this.engine.logs(id, options, signal);
  }

  exportImage(imageId: string, signal: AbortSignal): AsyncIterable<Uint8Array> {
    if (!this.engine.exportImage) throw new Error(`podman(${this.endpoint}): image export is not available`);
    return this.engine.exportImage(imageId, signal);
  }

  start(id: string): Promise<void> {
    return this.engine.start(id);
  }

  stop(id: string): Promise<void> {
    return this.engine.stop(id);
  }

  restart(id: string): Promise<void> {
    return this.engine.restart(id);
  }

  remove(id: string): Promise<void> {
    return this.engine.remove(id);
  }

  stats(id: string): Promise<Engine.DockerStats> {
    return this.engine.stats(id);
  }

  pullImage(
    reference: string,
    auth?: Engine.RegistryPullAuth,
    signal?: AbortSignal,
  ): Promise<Engine.DockerImageDetails> {
    return this.engine.pullImage(reference, auth, signal);
  }

  tagImage(imageId: string, reference: string): Promise<void> {
    return this.engine.tagImage(imageId, reference);
  }

  /** In its pod when it shares a pod's infra container's namespaces (`container:<infra id>`), else as for Docker. */
  async createContainer(spec: Engine.ContainerSpec): Promise<string> {
    const pod = await this.podJoinedBy(spec.networkMode);
    if (pod === undefined) return this.engine.createContainer(spec);
    const body = toPodSpecGenerator(spec, pod);
    try {
      return await this.libpod.createContainer(body);
    } catch (error) {
      const conflict = (error as { statusCode?: unknown }).statusCode === 409;
      const message = `podman(${this.endpoint}): create ${spec.name} in pod ${pod}: ${errorMessage(error).trim()}`;
      throw conflict ? new DockerConflictError(message) : new Error(message, { cause: error });
    }
  }

  private async podJoinedBy(networkMode: string): Promise<string | undefined> {
    if (!networkMode.startsWith('container:')) return undefined;
    const id = networkMode.slice('container:'.length);
    if (!this.members.has(id)) await this.refreshPods([...this.known]);
    const membership = this.members.get(id);
    return membership?.infra ? membership.pod : undefined;
  }

  renameContainer(id: string, name: string): Promise<void> {
    return this.engine.renameContainer(id, name);
  }

  forceRemoveContainer(id: string): Promise<void> {
    return this.engine.forceRemoveContainer(id);
  }

  listImages(): Promise<Engine.DockerImageSummary[]> {
    return this.engine.listImages();
  }

  removeImage(reference: string): Promise<void> {
    return this.engine.removeImage(reference);
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
