import type { ContainerSpec } from '../../../shared/docker/docker-host';
import type { DockerEndpoint } from '../../../shared/docker/watcher-config';
import type { Container } from '../../../shared/schemas/container';
import { HttpError } from '../http/http-error';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]', 'host.docker.internal']);

/**
 * Why updating this container would cut the hub off from the Docker it is updating it on (domain
 * notes: "updating the socket proxy the tool itself talks through"), or undefined. The update
 * stops the old container before the new one starts and then needs Docker to finish, roll back or
 * be recovered: through a proxy that just went down, none of that can happen.
 *
 * - the hub's own container (the Node entry finds its id from /proc/self/mountinfo);
 * - the container serving the watcher's TCP endpoint: its name or a network alias is the endpoint's
 *   host (`tcp://socket-proxy:2375`), or it publishes the endpoint's port on a loopback endpoint.
 */
export function lifelineReason(
  container: Pick<Container, 'id' | 'name'>,
  spec: Pick<ContainerSpec, 'networks' | 'portBindings'> | undefined,
  endpoint: DockerEndpoint | undefined,
  selfContainerId: string | undefined,
): string | undefined {
  if (selfContainerId && container.id === selfContainerId) {
    return `the hub runs in ${container.name}: stopping it would stop the update halfway (update it with its compose file or from another host)`;
  }
  if (!endpoint || 'socketPath' in endpoint || !spec) return undefined;
  const host = endpoint.host.toLowerCase();
  const names = [container.name, ...spec.networks.flatMap((network) => network.aliases)].map((name) => name.toLowerCase());
  const publishes = Object.values(spec.portBindings)
    .flat()
    .some((binding) => binding.hostPort === String(endpoint.port));
  if (names.includes(host) || (LOOPBACK.has(host) && publishes)) {
    return `the hub reaches this Docker through ${container.name} (${endpoint.protocol}://${endpoint.host}:${endpoint.port}): stopping it would cut the update off halfway`;
  }
  return undefined;
}

/** Spec 4.8 409 for a lifeline container (see lifelineReason). */
export function lifelineRefusal(reason: string): HttpError {
  return new HttpError(409, `This container is not updated by the hub: ${reason}`, { reason: 'hub-lifeline' });
}
