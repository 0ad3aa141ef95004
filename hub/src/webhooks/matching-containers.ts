import { lookupReference } from '../../../shared/containers/container-record';
import { parseImageReference } from '../../../shared/registry/image-reference';
import type { Container } from '../../../shared/schemas/container';
import type { PushedImage } from './registry-events/index';

/** `registry/repository` keys a container answers to: its own image, and its lookup override. */
function keysOf(container: Container): string[] {
  const keys = new Set<string>();
  const lookup = lookupReference(container);
  if (lookup) keys.add(`${lookup.registry}/${lookup.repository}`);
  try {
    const own = parseImageReference(`${container.image.registry.url}/${container.image.name}`);
    keys.add(`${own.registry}/${own.repository}`);
  } catch {
    // An image without a repository to look in (run from an image id): nothing to match.
  }
  return [...keys];
}

/**
 * The watched containers, local and on agents, whose image lives where a push happened. Matched
 * by registry host and repository, not by tag: any new tag may be the newer version. A pushed
 * image without a host (a payload that does not say) matches the repository on every registry.
 */
export function matchingContainers(containers: readonly Container[], images: readonly PushedImage[]): Container[] {
  const exact = new Set<string>();
  const anyHost = new Set<string>();
  for (const image of images) {
    if (image.registry !== undefined) exact.add(`${image.registry}/${image.repository}`);
    else {
      anyHost.add(image.repository);
      if (!image.repository.includes('/')) anyHost.add(`library/${image.repository}`);
    }
  }
  return containers.filter((container) => {
    if (!container.watched) return false;
    return keysOf(container).some((key) => exact.has(key) || anyHost.has(key.slice(key.indexOf('/') + 1)));
  });
}
