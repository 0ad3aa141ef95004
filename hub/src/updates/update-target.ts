import { withTag } from '../../../shared/docker/image-names';
import { formatImageReference } from '../../../shared/registry/image-reference';
import type { Container } from '../../../shared/schemas/container';

export interface UpdateTarget {
  /** Full reference to pull and run, in the spelling users write (`nginx:1.28`, `ghcr.io/a/b:2`). */
  targetImage: string;
  fromVersion: string;
  toVersion: string;
}

/** The reference the container runs, rebuilt from its record. */
export function currentReference(container: Pick<Container, 'image'>): string {
  const { registry, name, tag } = container.image;
  return formatImageReference({
    registry: registry.url,
    repository: name,
    ...(tag.value !== '' && { tag: tag.value }),
  });
}

/**
 * What a pending update moves the container to: the candidate tag, or (a rebuilt image under the
 * same tag) the same reference pulled again. Undefined when nothing is pending or the container is
 * pinned to a digest without a tag (there is no name to move).
 */
export function updateTargetOf(container: Container): UpdateTarget | undefined {
  const kind = container.updateKind;
  if (!container.updateAvailable || kind.kind === 'unknown' || container.image.tag.value === '') return undefined;
  const current = currentReference(container);
  if (kind.kind === 'tag')
    return {
      targetImage: withTag(current, kind.remoteValue),
      fromVersion: kind.localValue,
      toVersion: kind.remoteValue,
    };
  return { targetImage: current, fromVersion: kind.localValue, toVersion: kind.remoteValue };
}

/** The version a container runs now: its tag, else its digest. */
export function currentVersion(container: Pick<Container, 'image'>): string {
  return container.image.tag.value || container.image.digest.value || container.image.id;
}
