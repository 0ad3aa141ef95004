import type { DockerContainerDetails, DockerImageDetails } from '../docker/docker-host';
import { type ImageReference, parseImageReference } from '../registry/image-reference';
import type { Container } from '../schemas/container';
// Not the tags index: it brings the regex engine, which reading a record does not need.
import { isVersionTag } from '../tags/candidate';
import type { CompiledTagPolicy } from '../tags/policy';
import type { ContainerLabels } from './container-labels';

export interface ContainerRecordInput {
  details: DockerContainerDetails;
  image: DockerImageDetails | undefined;
  watcher: string;
  agent?: string | undefined;
  labels: ContainerLabels;
  tagPolicy: CompiledTagPolicy;
  watchByDefault: boolean;
  previous: Container | undefined;
  now: number;
}

/** The reference updates are looked up for: the `dd.registry.lookup.image` override, else the image's own. */
export function lookupReference(container: Pick<Container, 'image'>): ImageReference | undefined {
  try {
    return parseImageReference(
      container.image.registry.lookupImage ??
        `${container.image.registry.url}/${container.image.name}:${container.image.tag.value}`,
    );
  } catch {
    return undefined;
  }
}

/** `registry/name:tag`, as the audit trail names a container's image. */
export function imageOf(container: Pick<Container, 'image'>): string {
  const { registry, name, tag } = container.image;
  return `${registry.url ? `${registry.url}/` : ''}${name}:${tag.value}`;
}

function parseReference(image: string): ImageReference | undefined {
  // A container created from an image id has no repository to look in.
  if (/^(sha256:)?[a-f0-9]{12,64}$/.test(image)) return undefined;
  try {
    return parseImageReference(image);
  } catch {
    return undefined;
  }
}

/** The RepoDigest of this repository: what the container's image was pulled by. */
function repoDigestOf(image: DockerImageDetails | undefined, ref: ImageReference | undefined): string | undefined {
  if (!image || !ref) return undefined;
  for (const entry of image.repoDigests) {
    const at = entry.lastIndexOf('@');
    const named = parseReference(entry.slice(0, at));
    if (named && named.registry === ref.registry && named.repository === ref.repository) return entry.slice(at + 1);
  }
  return undefined;
}

function parseEnv(env: readonly string[]): { key: string; value: string }[] {
  return env.map((entry) => {
    const eq = entry.indexOf('=');
    return eq === -1 ? { key: entry, value: '' } : { key: entry.slice(0, eq), value: entry.slice(eq + 1) };
  });
}

/**
 * A container's record from what Docker says now. Update fields (result, updateKind, ...) are
 * carried over from the previous record: they change only when a registry check says so.
 */
export function buildContainerRecord(input: ContainerRecordInput): Container {
  const { details, image, labels, previous } = input;
  const ref = parseReference(details.image);
  const tag = ref?.tag ?? (ref?.digest ? '' : 'latest');
  const semver = tag !== '' && isVersionTag(tag, input.tagPolicy);
  const repoDigest = repoDigestOf(image, ref);
  return {
    id: details.id,
    name: details.name,
    watcher: input.watcher,
    ...(input.agent !== undefined && { agent: input.agent }),
    status: details.state,
    ...(details.health && { health: details.health }),
    displayName: labels.displayName ?? details.name,
    ...(labels.displayIcon && { displayIcon: labels.displayIcon }),
    ...(labels.group && { group: labels.group }),
    watched: labels.watch ?? input.watchByDefault,
    ...(labels.includeTags && { includeTags: labels.includeTags }),
    ...(labels.excludeTags && { excludeTags: labels.excludeTags }),
    ...(labels.transformTags && { transformTags: labels.transformTags }),
    ...(labels.linkTemplate && { linkTemplate: labels.linkTemplate }),
    webhookEnabled: labels.webhookEnabled,
    labels: details.labels,
    env: parseEnv(details.env),
    image: {
      id: details.imageId,
      registry: { url: ref?.registry ?? '', ...(labels.lookupImage && { lookupImage: labels.lookupImage }) },
      name: ref?.repository ?? details.image,
      tag: { value: tag, semver },
      digest: {
        watch: labels.watchDigest ?? !semver,
        ...(repoDigest && { repo: repoDigest }),
        ...(ref?.digest && { value: ref.digest }),
      },
      architecture: image?.architecture ?? 'unknown',
      os: image?.os ?? 'unknown',
      ...(image?.variant && { variant: image.variant }),
      ...(image?.created && { created: image.created }),
    },
    ...(previous?.result && { result: previous.result }),
    updateAvailable: previous?.updateAvailable ?? false,
    updateKind: previous?.updateKind ?? { kind: 'unknown' },
    ...(previous?.updateMaturityLevel && { updateMaturityLevel: previous.updateMaturityLevel }),
    updatePolicy: previous?.updatePolicy ?? labels.labelPolicy,
    ...(previous?.blockers && { blockers: previous.blockers }),
    ...(previous?.error && { error: previous.error }),
    createdAt: new Date(details.createdAt).toISOString(),
    firstSeenAt: previous?.firstSeenAt ?? new Date(input.now).toISOString(),
    ...(previous?.checkedAt && { checkedAt: previous.checkedAt }),
  };
}
