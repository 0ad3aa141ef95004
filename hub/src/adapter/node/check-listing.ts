import { type ListingPrefetch, prefetchListing } from '../../../../edge-agent/src/docker/listing-prefetch';

/**
 * The listing `dockwatch check --docker` will ask for, begun by the entry before the command's
 * modules load (listing-prefetch.ts): the socket named by DOCKER_HOST as the Docker CLI reads it
 * (unset: /var/run/docker.sock), with `--all` or without. Undefined for other invocations (and a
 * TCP DOCKER_HOST): they list as usual. The host uses it only if the command ends up on that socket.
 */
export function prefetchCheckListing(
  args: readonly string[],
  env: { DOCKER_HOST?: string | undefined },
): ListingPrefetch | undefined {
  if (!args.includes('--docker') || args.includes('--help') || args.includes('-h')) return undefined;
  const dockerHost = env.DOCKER_HOST;
  if (dockerHost && !dockerHost.startsWith('unix://')) return undefined;
  const socketPath = dockerHost ? dockerHost.slice('unix://'.length) : '/var/run/docker.sock';
  return prefetchListing(socketPath, args.includes('--all'));
}
