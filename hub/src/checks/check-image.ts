import { errorMessage } from '../../../shared/error-message';
import type { Platform } from '../../../shared/registry/manifest';
import { RegistryError } from '../../../shared/registry/registry-error';
import { type CompiledTagPolicy, isVersionTag, type TagCandidate } from '../../../shared/tags';
import type { PublishedAt } from '../registries/registry-provider';
import type { FleetLookups } from './fleet-lookups';

export interface ImageCheckInput {
  /** Where to look: the container's image, or its `dd.registry.lookup.image` override. */
  registry: string;
  repository: string;
  tag: string;
  platform: Platform;
  /** Digests of the container's RepoDigests for this repository: what it was pulled by. */
  localDigests: readonly string[];
  /** The local image id; Docker's is the config digest, containerd's the manifest or index digest. */
  localImageId?: string | undefined;
  /** `dd.watch.digest`; when undefined, digests are watched for non-version tags only. */
  watchDigest?: boolean | undefined;
  tagPolicy: CompiledTagPolicy;
  skipTags?: readonly string[];
}

export interface ImageCheckError {
  phase: 'tags' | 'digest' | 'published';
  kind: string;
  message: string;
}

export interface ImageCheckResult {
  tagWatched: boolean;
  digestWatched: boolean;
  /** A newer tag of the same family, with its digest and publication date when known. */
  candidate?: (TagCandidate & { digest?: string; publishedAt?: PublishedAt }) | undefined;
  /** The digest the current tag points to now, when digests are watched. */
  remoteDigest?: string | undefined;
  /** True when the current tag now points to another image for this container's platform. */
  digestChanged: boolean;
  /** Publication date of the new digest of the current tag, when it changed. */
  digestPublishedAt?: PublishedAt | undefined;
  errors: ImageCheckError[];
}

function describe(error: unknown, phase: ImageCheckError['phase']): ImageCheckError {
  if (error instanceof RegistryError) return { phase, kind: error.kind, message: error.message };
  return { phase, kind: 'internal', message: errorMessage(error) };
}

/**
 * Decides what is newer for one container's image, asking the registry only through the fleet
 * lookups (so containers sharing a repository share the requests). A failed lookup is recorded
 * in `errors` and the rest of the check goes on.
 */
export async function checkImage(input: ImageCheckInput, lookups: FleetLookups): Promise<ImageCheckResult> {
  const tagWatched = isVersionTag(input.tag, input.tagPolicy);
  const result: ImageCheckResult = {
    tagWatched,
    digestWatched: input.watchDigest ?? !tagWatched,
    digestChanged: false,
    errors: [],
  };
  await Promise.all([
    tagWatched && checkTags(input, lookups, result),
    result.digestWatched && checkDigest(input, lookups, result),
  ]);
  return result;
}

/**
 * Starts the requests a check of this image begins with (the tag list, the tag's digest), without
 * waiting: a watch cycle calls it for the references its last records name as it starts, so the
 * registry answers while Docker is still listing (issue 18). The check itself shares these
 * requests through the lookups, and meets their failures there.
 */
export function prefetchImage(
  input: Pick<ImageCheckInput, 'registry' | 'repository' | 'tag' | 'watchDigest' | 'tagPolicy'>,
  lookups: FleetLookups,
): void {
  const tagWatched = isVersionTag(input.tag, input.tagPolicy);
  const ignore = () => undefined;
  if (tagWatched) lookups.tags(input.registry, input.repository).catch(ignore);
  if (input.watchDigest ?? !tagWatched) lookups.tagDigest(input.registry, input.repository, input.tag).catch(ignore);
}

async function checkTags(input: ImageCheckInput, lookups: FleetLookups, result: ImageCheckResult): Promise<void> {
  let tags: string[];
  try {
    tags = await lookups.tags(input.registry, input.repository);
  } catch (error) {
    result.errors.push(describe(error, 'tags'));
    return;
  }
  const candidate = lookups.tagCandidate(
    input.registry,
    input.repository,
    input.tag,
    tags,
    input.tagPolicy,
    input.skipTags,
  );
  if (!candidate) return;
  result.candidate = { ...candidate };
  try {
    const digest = await lookups.candidateDigest(input.registry, input.repository, candidate.tag);
    result.candidate.digest = digest;
    const publishedAt = await lookups.publishedAt(
      input.registry,
      input.repository,
      candidate.tag,
      digest,
      input.platform,
    );
    if (publishedAt) result.candidate.publishedAt = publishedAt;
  } catch (error) {
    result.errors.push(describe(error, 'published'));
  }
}

/** A content digest (`sha256:…`), as Docker's and containerd's image ids are. */
const IMAGE_DIGEST = /^sha(256|384|512):[0-9a-f]{64,128}$/;

/**
 * Compares like with like: the tag's digest against what the container was pulled by, and when
 * those differ (multi-arch indexes, images pulled by platform digest), the platform's manifest
 * and config digests against the local ones. Without any local digest nothing can be compared.
 */
async function checkDigest(input: ImageCheckInput, lookups: FleetLookups, result: ImageCheckResult): Promise<void> {
  const local = new Set(input.localDigests);
  // Hosts with no local image (file sources, swarm services) stand their reference in for the id:
  // compared as a digest, it made every unpinned `:latest` entry a digest update, at 3 requests each.
  if (input.localImageId && IMAGE_DIGEST.test(input.localImageId)) local.add(input.localImageId);
  try {
    const head = await lookups.tagDigest(input.registry, input.repository, input.tag);
    result.remoteDigest = head.digest;
    if (local.size === 0 || local.has(head.digest)) return;
    const image = await lookups.platformImage(input.registry, input.repository, head.digest, input.platform);
    if (local.has(image.manifestDigest) || local.has(image.configDigest)) return;
    result.digestChanged = true;
  } catch (error) {
    result.errors.push(describe(error, 'digest'));
    return;
  }
  try {
    result.digestPublishedAt = await lookups.publishedAt(
      input.registry,
      input.repository,
      input.tag,
      result.remoteDigest,
      input.platform,
    );
  } catch (error) {
    result.errors.push(describe(error, 'published'));
  }
}
