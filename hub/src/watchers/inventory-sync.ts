import { type ContainerLabels, readContainerLabels } from '../../../shared/containers/container-labels';
import { buildContainerRecord } from '../../../shared/containers/container-record';
import { type LabelMap, type MergedLabels, mergeLabelOverrides } from '../../../shared/containers/label-overrides';
import type {
  DockerContainerDetails,
  DockerContainerSummary,
  DockerHost,
  DockerImageDetails,
} from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import type { Container } from '../../../shared/schemas/container';
import type { UpdatePolicy } from '../../../shared/schemas/update-policy';
import type { WatcherType } from '../../../shared/sources/watcher-type-names';
import {
  type ContainerCheckContext,
  checkContainer,
  prefetchContainer,
  recheckMoved,
  type TagPolicyCache,
} from './container-check';
import type { BuildInputs, InspectCache } from './inspect-cache';
import { sameJson } from './same-json';
import { createTimeSlices } from './time-slices';

export interface SyncError {
  phase: 'list' | 'inspect' | 'check';
  id?: string;
  message: string;
}

export interface ObservedInventory {
  /** Records built from what Docker said now, update fields checked when asked to. */
  records: Container[];
  /** Previous records of this source that Docker no longer lists (only when authoritative). */
  removedIds: string[];
  errors: SyncError[];
  /** True when every observation succeeded: only then may records be removed. */
  authoritative: boolean;
  /**
   * Made from the inventory the event stream kept, without Docker's listing: the caller lists
   * afterwards and reconciles (DockerWatcher).
   */
  unlisted?: true | undefined;
}

export interface ObserveOptions {
  host: DockerHost;
  watcher: string;
  /** Written on the records (absent for docker): the list's `watcherType` filter reads it. */
  watcherType?: WatcherType | undefined;
  agent?: string | undefined;
  watchAll: boolean;
  watchByDefault: boolean;
  previous: ReadonlyMap<string, Container>;
  policies: TagPolicyCache;
  /** Registry checks; absent for an inventory-only refresh. */
  check?: Omit<ContainerCheckContext, 'policies'> | undefined;
  /** Only these container ids (a Docker event); others keep their records untouched. */
  onlyIds?: ReadonlySet<string> | undefined;
  /** The label overrides that apply to a container, found from its record as its own labels built it. */
  labelOverrides?:
    | ((record: Container) => { global?: LabelMap | undefined; container?: LabelMap | undefined })
    | undefined;
  now: number;
  /** Details of containers that have not changed since they were inspected (the event stream says). */
  inspected?: InspectCache | undefined;
  /**
   * A watch cycle that reconciles with Docker's listing after it (DockerWatcher.reconcile): when
   * the event stream kept every record current, they are observed without the listing.
   */
  listAfter?: boolean | undefined;
  /**
   * Docker's listing, asked for when the cycle began (DockerWatcher): used instead of listing again,
   * whether the observation needs it now or the caller reconciles with it afterwards.
   */
  listing?: Promise<DockerContainerSummary[]> | undefined;
}

const INSPECT_CONCURRENCY = 8;
const BUILD_SLICE_MS = 8;

/**
 * Observes one Docker host: list, inspect (containers and their images, each image once), build
 * records, and check them against their registries when asked. Nothing is written here; a failed
 * observation keeps the last-known record and makes the result non-authoritative.
 */
/** An image's details, asked of the host once per observation however many containers run it. */
type ImageOf = (id: string) => Promise<DockerImageDetails | undefined>;

function imageInspects(host: DockerHost): ImageOf {
  const asked = new Map<string, Promise<DockerImageDetails | undefined>>();
  return (id) => {
    let details = asked.get(id);
    if (!details) {
      details = host.inspectImage(id);
      // Asked ahead: a failure is reported by the containers that await it, if any still run it.
      details.catch(() => undefined);
      asked.set(id, details);
    }
    return details;
  };
}

export async function observeInventory(options: ObserveOptions): Promise<ObservedInventory> {
  const errors: SyncError[] = [];
  const imageOf = imageInspects(options.host);
  // A full observation needs the images of the containers it knew (each inspected once): asked
  // now, while Docker lists, rather than one round trip after the listing (issue 18).
  if (!options.onlyIds) for (const { image } of options.previous.values()) void imageOf(image.id);
  // A full observation whose every record the event stream kept current is made from them, and
  // Docker's listing is not waited for (issue 18: listing a thousand containers takes the Engine
  // longer than the registry takes to answer); the caller reconciles with it afterwards.
  const known = options.listAfter && !options.onlyIds ? options.inspected?.knownInventory(options.previous) : undefined;
  if (known) return { ...(await observeListed([...known.keys()], known, options, imageOf, errors)), unlisted: true };
  let ids: string[];
  let summaries: Map<string, DockerContainerSummary>;
  try {
    const listed = await (options.listing ?? options.host.listContainers(options.watchAll));
    summaries = new Map(listed.map((summary) => [summary.id, summary]));
    ids = listed.map((summary) => summary.id).filter((id) => !options.onlyIds || options.onlyIds.has(id));
    // A container of onlyIds that the listing no longer has is gone (or stopped, without WATCHALL).
    if (options.onlyIds)
      for (const id of options.onlyIds) if (!ids.includes(id) && options.previous.has(id)) ids.push(id);
    // The images of the listing, each asked once, all now: taken as the capped container inspects
    // reach them, a thousand containers on fifty images waited for them eight at a time, and the
    // registry checks behind them (issue 29, `dockwatch check`).
    for (const id of ids) {
      const summary = summaries.get(id);
      if (summary && (options.watchAll || summary.state === 'running')) void imageOf(summary.imageId);
    }
  } catch (error) {
    return {
      records: [...options.previous.values()],
      removedIds: [],
      errors: [{ phase: 'list', message: errorMessage(error) }],
      authoritative: false,
    };
  }
  prefetchListed(ids, summaries, options);
  return observeListed(ids, summaries, options, imageOf, errors);
}

/** Inspects (or takes from the cache), builds and checks the listed containers. */
async function observeListed(
  ids: readonly string[],
  summaries: ReadonlyMap<string, DockerContainerSummary>,
  options: ObserveOptions,
  imageOf: ImageOf,
  errors: SyncError[],
): Promise<ObservedInventory> {
  const limiter = createConcurrencyLimiter(INSPECT_CONCURRENCY);
  const seen = new Set<string>();
  const records: Container[] = [];
  const built = new Map<Container, { id: string; inputs: BuildInputs }>();
  // Once their images are known, the records are built in one run of continuations: it is cut
  // into slices, so the registry's answers are read (and its next requests sent) meanwhile.
  const slices = createTimeSlices(BUILD_SLICE_MS);
  // Docker is asked under the inspect cap; registry checks run outside it (the registry client has
  // its own limits), so a slow registry never holds back inspecting the other containers.
  await Promise.all(
    ids.map(async (id) => {
      const observed = await limiter.run(() => {
        const observe = () => observeOne(id, summaries.get(id), options, imageOf, errors);
        const pause = slices.pause();
        return pause ? pause.then(observe) : observe();
      });
      if (observed === 'gone') return;
      seen.add(id);
      if (!observed) {
        records.push(options.previous.get(id) as Container);
        return;
      }
      const { record, labelPolicy } = observed;
      const check = options.check;
      const next =
        check && record.watched
          ? await checkWithPolicy(record, labelPolicy, { ...check, policies: options.policies }, errors)
          : record;
      records.push(next);
      built.set(next, { id, inputs: observed.inputs });
    }),
  );
  // A record checked early waited for the others: one whose policy an API call changed meanwhile
  // is checked again with it before anything is stored or acted on.
  if (options.check) {
    const rechecked = await recheckMoved(records, { ...options.check, policies: options.policies });
    for (const [index, record] of records.entries()) {
      const replaced = rechecked.get(record);
      if (!replaced) continue;
      records[index] = replaced;
      const build = built.get(record);
      if (build) built.set(replaced, build);
    }
  }
  if (options.inspected)
    for (const record of records) {
      const build = built.get(record);
      if (build) options.inspected.rememberBuild(build.id, { ...build.inputs, record });
    }
  // Only observations count: a failed registry check says nothing about which containers exist.
  const authoritative = errors.every((error) => error.phase === 'check');
  const candidates = options.onlyIds ? [...options.onlyIds] : [...options.previous.keys()];
  const removedIds = authoritative ? candidates.filter((id) => !seen.has(id) && options.previous.has(id)) : [];
  return { records, removedIds, errors, authoritative };
}

/** The container's details: from the inspect cache when the listing shows it unchanged, else from the Engine. */
async function inspect(
  id: string,
  summary: DockerContainerSummary | undefined,
  options: ObserveOptions,
): Promise<DockerContainerDetails | undefined> {
  const cache = options.inspected;
  const cached = cache?.lookup(summary);
  if (cached) return cached;
  const token = cache?.begin(id);
  const details = await options.host.inspectContainer(id);
  if (cache && token) {
    if (details) cache.keep(token, details);
    else cache.forget(id);
  }
  return details;
}

/** The `dd.*` labels of a container: all of what decides its registry requests besides its image. */
function policyLabelsKey(labels: Record<string, string>): string {
  let key = '';
  for (const name in labels) if (name.startsWith('dd.')) key += `${name}=${labels[name]}\u0000`;
  return key;
}

/**
 * Starts the registry requests of the listed containers the cycle has no record of (all of them
 * for `dockwatch check`; new ones for the hub, whose watcher started those of its records with the
 * cycle), from a record built of the listing alone: which requests a check makes depends on the
 * reference, the labels and the overrides, not on the inspects, so they need not wait for them
 * (issue 29: the check's first request left 55 to 65 ms after the listing came). One record per
 * distinct image and `dd.*` labels; with label overrides (found by name) one per container.
 */
function prefetchListed(
  ids: readonly string[],
  summaries: ReadonlyMap<string, DockerContainerSummary>,
  options: ObserveOptions,
): void {
  const lookups = options.check?.lookups;
  if (!lookups || options.host.inspectsInMemory) return;
  const seen = new Set<string>();
  for (const id of ids) {
    const summary = summaries.get(id);
    if (!summary || options.previous.has(id) || (!options.watchAll && summary.state !== 'running')) continue;
    const key = options.labelOverrides ? id : `${summary.image}\u0000${policyLabelsKey(summary.labels)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { record } = recordOf({ ...summary, env: [], restartCount: 0 }, undefined, undefined, options);
    if (record.watched) prefetchContainer(record, { lookups, policies: options.policies });
  }
}

/**
 * A container's record from its details and its image's, with the label overrides that apply to
 * it: found from the record its own labels give (name, image, group), then applied.
 */
function recordOf(
  details: DockerContainerDetails,
  imageDetails: DockerImageDetails | undefined,
  previous: Container | undefined,
  options: ObserveOptions,
): {
  record: Container;
  labels: ContainerLabels;
  overrides: ReturnType<NonNullable<ObserveOptions['labelOverrides']>> | undefined;
} {
  const build = (labels: ContainerLabels, labelSources?: MergedLabels['sources']) => {
    const tagPolicy = options.policies.get({
      includeTags: labels.includeTags,
      excludeTags: labels.excludeTags,
      transformTags: labels.transformTags,
    });
    return buildContainerRecord({
      details,
      image: imageDetails,
      watcher: options.watcher,
      watcherType: options.watcherType,
      agent: options.agent,
      labels,
      labelSources,
      tagPolicy: tagPolicy instanceof Error ? ({ ...({} as object) } as never) : tagPolicy,
      watchByDefault: options.watchByDefault,
      previous,
      now: options.now,
    });
  };
  let labels = readContainerLabels(details.labels);
  let record = build(labels);
  const overrides = options.labelOverrides?.(record);
  if (overrides?.global || overrides?.container) {
    const merged = mergeLabelOverrides(details.labels, overrides);
    labels = readContainerLabels(merged.labels);
    record = build(labels, merged.sources);
  }
  return { record, labels, overrides };
}

async function observeOne(
  id: string,
  summary: DockerContainerSummary | undefined,
  options: ObserveOptions,
  imageOf: ImageOf,
  errors: SyncError[],
): Promise<{ record: Container; labelPolicy: UpdatePolicy; inputs: BuildInputs } | 'gone' | undefined> {
  try {
    const details = await inspect(id, summary, options);
    if (!details) return 'gone'; // removed between list and inspect
    // Without WATCHALL a stopped container is not watched: an event about it removes it, as a cycle would.
    if (!options.watchAll && details.state !== 'running') return 'gone';
    const image = imageOf(details.imageId);
    const previous = options.previous.get(id);
    const imageDetails = await image;
    // Nothing it was built from changed (the same inspect answer, image and overrides), and the
    // stored record is the one built then: it is what building again would give (issue 18).
    const last = options.inspected?.lastBuild(id, details, previous);
    if (last && previous && sameJson(last.image, imageDetails)) {
      const overrides = options.labelOverrides?.(previous);
      if (sameJson(last.overrides, overrides)) return { record: previous, labelPolicy: last.labelPolicy, inputs: last };
    }
    const { record, labels, overrides } = recordOf(details, imageDetails, previous, options);
    const inputs = { details, image: imageDetails, overrides, labelPolicy: labels.labelPolicy };
    return { record, labelPolicy: labels.labelPolicy, inputs };
  } catch (error) {
    errors.push({ phase: 'inspect', id, message: errorMessage(error) });
    return undefined;
  }
}

async function checkWithPolicy(
  record: Container,
  labelPolicy: UpdatePolicy,
  context: ContainerCheckContext,
  errors: SyncError[],
): Promise<Container> {
  try {
    return await checkContainer(record, labelPolicy, context);
  } catch (error) {
    // A check that throws (a bug, not a registry answer) still must not stop the others.
    errors.push({ phase: 'check', id: record.id, message: errorMessage(error) });
    return record;
  }
}
