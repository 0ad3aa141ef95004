import { BoundedCache } from '../bounded-cache';
import type { DockerContainerDetails, DockerImageDetails } from '../docker/docker-host';
import { isoTime } from '../iso-time';
import { isSensitiveKey } from '../redact';
import type { ImageReference } from '../registry/image-reference';
import { cachedImageReference } from '../registry/image-reference-cache';
import type { Container } from '../schemas/container';
import type { WatcherType } from '../sources/watcher-type-names';
// Not the tags index: it brings the regex engine, which reading a record does not need.
import { isVersionTag } from '../tags/candidate';
import type { CompiledTagPolicy } from '../tags/policy';
import { UNKNOWN_UPDATE_KIND } from '../update/update-kind';
import type { ContainerLabels } from './container-labels';
import { type EffectiveLabel, type MergedLabels, mergeLabelOverrides } from './label-overrides';

export interface ContainerRecordInput {
  details: DockerContainerDetails;
  image: DockerImageDetails | undefined;
  watcher: string;
  /** Its watcher's type; `docker` (the default) is not written on the record. */
  watcherType?: WatcherType | undefined;
  agent?: string | undefined;
  /** Read from the container's labels with its overrides on top (label-overrides.ts). */
  labels: ContainerLabels;
  /** Where each overridable value comes from; without it, all from the container's own labels. */
  labelSources?: MergedLabels['sources'] | undefined;
  tagPolicy: CompiledTagPolicy;
  watchByDefault: boolean;
  previous: Container | undefined;
  now: number;
}

/** The reference updates are looked up for: the `dd.registry.lookup.image` override, else the image's own. */
export function lookupReference(container: Pick<Container, 'image'>): Readonly<ImageReference> | undefined {
  return cachedImageReference(
    container.image.registry.lookupImage ??
      `${container.image.registry.url}/${container.image.name}:${container.image.tag.value}`,
  );
}

/** `registry/name:tag`, as the audit trail names a container's image. */
export function imageOf(container: Pick<Container, 'image'>): string {
  const { registry, name, tag } = container.image;
  return `${registry.url ? `${registry.url}/` : ''}${name}:${tag.value}`;
}

function parseReference(image: string): Readonly<ImageReference> | undefined {
  // A container created from an image id has no repository to look in.
  if (/^(sha256:)?[a-f0-9]{12,64}$/.test(image)) return undefined;
  return cachedImageReference(image);
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

/**
 * The pairs of the environment entries seen last, one frozen object each: the containers of an
 * image repeat the entries it sets (PATH, versions), and a fleet's records held a pair object and
 * two strings each for every one of them (issue 30 item 3). Records are replaced, never edited.
 */
const envPairs = new BoundedCache<string, Readonly<{ key: string; value: string }>>(10_000);
function envPair(entry: string): Readonly<{ key: string; value: string }> {
  let pair = envPairs.get(entry);
  if (pair) return pair;
  const eq = entry.indexOf('=');
  pair = Object.freeze(eq === -1 ? { key: entry, value: '' } : { key: entry.slice(0, eq), value: entry.slice(eq + 1) });
  // A secret is not kept beyond the records that hold it.
  if (!isSensitiveKey(pair.key)) envPairs.set(entry, pair);
  return pair;
}

function parseEnv(env: readonly string[]): { key: string; value: string }[] {
  return env.map(envPair);
}

/**
 * The default entries, and the whole map of a container no label or override speaks for (most of
 * a fleet): one frozen object each, shared by every record. Built per record, they were four of
 * its objects and a sixth of its size (issue 30 item 3). Records are replaced, never edited.
 */
const DEFAULT_TRUE: EffectiveLabel = Object.freeze({ value: 'true', source: 'default' });
const DEFAULT_FALSE: EffectiveLabel = Object.freeze({ value: 'false', source: 'default' });
const defaultEntry = (value: boolean) => (value ? DEFAULT_TRUE : DEFAULT_FALSE);
const onlyDefaults = (watch: boolean, watchDigest: boolean): Record<string, EffectiveLabel> =>
  Object.freeze({
    'dd.watch': defaultEntry(watch),
    'dd.watch.digest': defaultEntry(watchDigest),
    'dd.webhook.enabled': DEFAULT_TRUE,
  });
/** By watch, then watchDigest. */
const ONLY_DEFAULTS = {
  true: { true: onlyDefaults(true, true), false: onlyDefaults(true, false) },
  false: { true: onlyDefaults(false, true), false: onlyDefaults(false, false) },
};

function isEmpty(sources: MergedLabels['sources']): boolean {
  for (const _ in sources) return false;
  return true;
}

/** The sources with the defaults the record falls back to where no label or override says. */
export function withDefaults(
  sources: MergedLabels['sources'],
  defaults: { watch: boolean; watchDigest: boolean },
): Record<string, EffectiveLabel> {
  if (isEmpty(sources)) return ONLY_DEFAULTS[`${defaults.watch}`][`${defaults.watchDigest}`];
  return {
    ...sources,
    'dd.watch': sources['dd.watch'] ?? defaultEntry(defaults.watch),
    'dd.watch.digest': sources['dd.watch.digest'] ?? defaultEntry(defaults.watchDigest),
    'dd.webhook.enabled': sources['dd.webhook.enabled'] ?? DEFAULT_TRUE,
  };
}

/** The record's fields that its labels decide (with their overrides): the same when built and when relabelled. */
function labelFields(labels: ContainerLabels, name: string, watched: boolean) {
  return {
    displayName: labels.displayName ?? name,
    ...(labels.displayIcon && { displayIcon: labels.displayIcon }),
    ...(labels.group && { group: labels.group }),
    watched,
    ...(labels.includeTags && { includeTags: labels.includeTags }),
    ...(labels.excludeTags && { excludeTags: labels.excludeTags }),
    ...(labels.transformTags && { transformTags: labels.transformTags }),
    ...(labels.linkTemplate && { linkTemplate: labels.linkTemplate }),
    webhookEnabled: labels.webhookEnabled,
  };
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
  const watched = labels.watch ?? input.watchByDefault;
  // An unwatched container is never checked: an update found while it was watched (before an
  // override turned it off) is not carried, or it would stay "available" for good.
  const carried = watched ? previous : undefined;
  const sources = input.labelSources ?? mergeLabelOverrides(details.labels, {}).sources;
  return {
    id: details.id,
    name: details.name,
    watcher: input.watcher,
    ...(input.watcherType !== undefined && input.watcherType !== 'docker' && { watcherType: input.watcherType }),
    ...(input.agent !== undefined && { agent: input.agent }),
    status: details.state,
    ...(details.health && { health: details.health }),
    ...labelFields(labels, details.name, watched),
    labels: details.labels,
    effectiveLabels: withDefaults(sources, { watch: input.watchByDefault, watchDigest: !semver }),
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
    ...(carried?.result && { result: carried.result }),
    updateAvailable: carried?.updateAvailable ?? false,
    updateKind: carried?.updateKind ?? UNKNOWN_UPDATE_KIND,
    ...(carried?.updateMaturityLevel && { updateMaturityLevel: carried.updateMaturityLevel }),
    updatePolicy: previous?.updatePolicy ?? labels.labelPolicy,
    ...(carried?.blockers && { blockers: carried.blockers }),
    ...(carried?.error && { error: carried.error }),
    createdAt: new Date(details.createdAt).toISOString(),
    firstSeenAt: previous?.firstSeenAt ?? isoTime(input.now),
    ...(previous?.checkedAt && { checkedAt: previous.checkedAt }),
  };
}

/**
 * The record again after its labels or their overrides changed, without asking Docker: the fields
 * labels decide are read afresh, the rest kept (docs/label-overrides.md "Taking effect").
 */
export function relabelRecord(
  record: Container,
  labels: ContainerLabels,
  sources: MergedLabels['sources'],
  watchByDefault: boolean,
): Container {
  const {
    displayIcon: _icon,
    group: _group,
    includeTags: _include,
    excludeTags: _exclude,
    transformTags: _transform,
    linkTemplate: _link,
    result,
    updateMaturityLevel,
    blockers,
    error,
    ...kept
  } = record;
  const watched = labels.watch ?? watchByDefault;
  const semver = record.image.tag.semver;
  const carried = watched ? record : undefined;
  return {
    ...kept,
    ...labelFields(labels, record.name, watched),
    effectiveLabels: withDefaults(sources, { watch: watchByDefault, watchDigest: !semver }),
    image: {
      ...record.image,
      registry: { url: record.image.registry.url, ...(labels.lookupImage && { lookupImage: labels.lookupImage }) },
      digest: { ...record.image.digest, watch: labels.watchDigest ?? !semver },
    },
    ...(watched && result && { result }),
    updateAvailable: carried?.updateAvailable ?? false,
    updateKind: carried?.updateKind ?? UNKNOWN_UPDATE_KIND,
    ...(watched && updateMaturityLevel && { updateMaturityLevel }),
    ...(watched && blockers && { blockers }),
    ...(watched && error && { error }),
  };
}
