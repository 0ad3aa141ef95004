import type { ContainerSpec } from '../../../shared/docker/docker-host';
import type { DockerEndpoint } from '../../../shared/docker/watcher-config';
import type { Container } from '../../../shared/schemas/container';
import { HttpError } from '../http/http-error';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]', 'host.docker.internal']);

/**
 * Why updating this container would cut the updater off from the Docker it is updating it on
 * (docs/updates.md "What the hub does not update"), or undefined. The
 * update stops the old container before the new one starts and then needs Docker to finish, roll
 * back or be recovered: through a proxy that just went down, or from a process that just stopped,
 * none of that can happen.
 *
 * - the container the updater runs in (`self`: the hub, or the edge agent that runs the update);
 * - the container serving the watcher's TCP endpoint: its name or a network alias is the endpoint's
 *   host (`tcp://socket-proxy:2375`), or it publishes the endpoint's port on a loopback endpoint.
 *   Without the container's configuration (`spec`) only its name is compared.
 */
export function lifelineReason(
  container: Pick<Container, 'id' | 'name'>,
  spec: Pick<ContainerSpec, 'networks' | 'portBindings'> | undefined,
  endpoint: DockerEndpoint | undefined,
  self: { containerId: string | undefined; runs: string },
): string | undefined {
  if (self.containerId && container.id === self.containerId) {
    return `${self.runs} runs in ${container.name}: stopping it would stop the update halfway (update it with its compose file or from another host)`;
  }
  if (!endpoint || 'socketPath' in endpoint) return undefined;
  const host = endpoint.host.toLowerCase();
  const names = [container.name, ...(spec?.networks.flatMap((network) => network.aliases) ?? [])].map((name) =>
    name.toLowerCase(),
  );
  const publishes = Object.values(spec?.portBindings ?? {})
    .flat()
    .some((binding) => binding.hostPort === String(endpoint.port));
  if (names.includes(host) || (LOOPBACK.has(host) && publishes)) {
    return `${self.runs} reaches this Docker through ${container.name} (${endpoint.protocol}://${endpoint.host}:${endpoint.port}): stopping it would cut the update off halfway`;
  }
  return undefined;
}

/** `tcp://host:port` as an agent shows its watcher's endpoint; undefined for a socket or anything else. */
export function tcpEndpointOf(shown: string): DockerEndpoint | undefined {
  const match = /^tcp:\/\/([^:/]+)(?::(\d+))?\/?$/.exec(shown);
  if (!match?.[1]) return undefined;
  return { host: match[1], port: Number(match[2] ?? 2375), protocol: 'http' };
}

/** http-interface §4.8 409 for a lifeline container (see lifelineReason). */
export function lifelineRefusal(reason: string): HttpError {
  return new HttpError(409, `This container is not updated by the hub: ${reason}`, { reason: 'hub-lifeline' });
}
