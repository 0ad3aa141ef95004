import type { DockerHost, DockerSubscription } from '../../../shared/docker/docker-host';
import type { WatcherConfig, WatcherType } from '../../../shared/docker/watcher-config';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { FleetLookups } from '../checks/fleet-lookups';
import type { ScheduledJob, Scheduler } from '../schedule/scheduler';
import type { ContainerStore } from '../store/container-store';
import { type ApplyTargets, applyInventory } from './apply-inventory';
import { type ContainerCheckContext, prefetchContainer, recheckMoved, type TagPolicyCache } from './container-check';
import { InspectCache } from './inspect-cache';
import { type ObservedInventory, type ObserveOptions, observeInventory } from './inventory-sync';

export interface DockerWatcherDeps extends ApplyTargets {
  config: WatcherConfig;
  /** `docker`, or a file source's type (docs/sources.md) whose host presents its entries as containers. */
  type?: WatcherType | undefined;
  host: DockerHost;
  agent?: string | undefined;
  store: ContainerStore;
  lookups: FleetLookups | undefined;
  policies: TagPolicyCache;
  thresholdDays: number;
  logger: Logger;
  now: () => number;
  /** Docker events are gathered this long before one targeted refresh. */
  eventDebounceMs?: number;
  /** The first run after start, before the cron schedule takes over. */
  startDelayMs?: number;
  /** The durable schedules: the cron's next run (jitter drawn) is stored, and wakes an evicted Durable Object. */
  schedule: Pick<Scheduler, 'job' | 'forget'>;
  /** Told how each watch cycle ended (dd_watcher_runs_total): `partial` had some inspect or check errors, `failed` no listing. */
  onCycle?: ((outcome: { durationMs: number; result: 'success' | 'partial' | 'failed' }) => void) | undefined;
  /** The label overrides of each container (docs/label-overrides.md); none when absent. */
  labelOverrides?: ObserveOptions['labelOverrides'];
  /** Moves whenever an override is set or cleared: an observation that spans a change is built again. */
  labelOverridesRevision?: (() => number) | undefined;
}

export interface WatchResult extends ObservedInventory {
  /** This call was folded into a cycle that was already running, or its follow-up. */
  coalesced: boolean;
}

const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 60_000;
/** Observations of one call when label overrides keep changing under it: the last one is kept. */
const MAX_OBSERVATIONS = 3;

/** What one observation of this watcher's host is asked to do. */
interface ObserveCall {
  check: boolean;
  onlyIds?: ReadonlySet<string>;
  listAfter?: boolean;
  listing?: ReturnType<DockerHost['listContainers']>;
}

/**
 * One Docker watcher (`docker.<name>`): scheduled watch cycles with registry checks, inventory
 * refreshes without them, and the Docker event stream keeping the inventory live in between.
 */
export class DockerWatcher {
  lastRunAt: number | undefined;
  /** The cycle in progress, and the one follow-up that calls arriving meanwhile share. */
  private running: Promise<WatchResult> | undefined;
  private queued: Promise<WatchResult> | undefined;
  private job: ScheduledJob | undefined;
  private events: DockerSubscription | undefined;
  /** Inspect answers kept current by the event stream: a warm cycle inspects only what changed. */
  private readonly inspected: InspectCache | undefined;
  private pendingIds = new Set<string>();
  /** Of the pending ids, those with a record when their event came: one gone since was removed meanwhile. */
  private pendingKnownIds = new Set<string>();
  /** The store's removalsOnRequest when the pending events' first came (withoutRemovedSince). */
  private pendingRemovalMark: number | undefined;
  /** Refreshes after the event stream reopened, still running (stop waits for them). */
  private readonly gapRefreshes = new Set<Promise<void>>();
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private reconnectMs = RECONNECT_MIN_MS;
  private stopped = false;

  constructor(private readonly deps: DockerWatcherDeps) {
    this.inspected = deps.host.eventsCoverChanges ? new InspectCache() : undefined;
  }

  get host(): DockerHost {
    return this.deps.host;
  }

  get name(): string {
    return this.deps.config.name;
  }

  /** The edge agent this watcher belongs to; undefined for the hub's own watchers. */
  get agent(): string | undefined {
    return this.deps.agent;
  }

  /** WATCHBYDEFAULT: whether a container without a `dd.watch` label (or override) is watched. */
  get watchByDefault(): boolean {
    return this.deps.config.watchByDefault;
  }

  get type(): WatcherType {
    return this.deps.type ?? 'docker';
  }

  get id(): string {
    return `${this.type}.${this.deps.config.name}`;
  }

  /** An agent's watchers are scheduled by the hub too; their jobs wait in storage while the agent is away. */
  private get jobName(): string {
    return this.deps.agent === undefined ? `watch.${this.id}` : `watch.${this.deps.agent}/${this.id}`;
  }

  /** The next scheduled cycle, jitter included (http-interface §2.2 metadata.nextRunAt); undefined until started. */
  get nextRunAt(): number | undefined {
    return this.job?.nextRunAt();
  }

  /** This watcher's containers as stored now. */
  containers(): Container[] {
    return this.deps.store.ofSource(this.deps.agent, this.name);
  }

  /**
   * A full watch cycle. Single-flight: a call during a running cycle is folded into one follow-up
   * cycle that starts when it ends, so every caller sees a cycle that began after its call.
   */
  watch(options: { joinCycle?: boolean } = {}): Promise<WatchResult> {
    if (!this.running) return this.begin(options.joinCycle ?? false);
    this.queued ??= this.running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.queued = undefined;
        return this.begin(options.joinCycle ?? false);
      });
    return this.queued.then((result) => ({ ...result, coalesced: true }));
  }

  private begin(joinCycle: boolean): Promise<WatchResult> {
    // A refresh after an event-stream break observes every container too: the cycle follows it
    // rather than inspecting them all a second time beside it.
    const run =
      this.gapRefreshes.size === 0
        ? this.runCycle(joinCycle)
        : Promise.all(this.gapRefreshes).then(() => this.runCycle(joinCycle));
    const cycle: Promise<WatchResult> = run.finally(() => {
      if (this.running === cycle) this.running = undefined;
    });
    this.running = cycle;
    return cycle;
  }

  /** The inventory without registry checks (http-interface §4.3). `isCurrent` false means: write nothing. */
  async refreshInventory(isCurrent: () => boolean): Promise<ObservedInventory> {
    const observed = await this.observeAndApply({ check: false }, async (fresh) => {
      if (isCurrent()) await applyInventory(fresh, this.deps);
    });
    return { ...observed, records: this.containers() };
  }

  /** One container, checked against its registry. Undefined when it is not (or no longer) there. */
  async watchContainer(id: string): Promise<{ container: Container | undefined; errors: ObservedInventory['errors'] }> {
    const observed = await this.observeAndApply({ check: true, onlyIds: new Set([id]) });
    return { container: this.deps.store.get(id), errors: observed.errors };
  }

  /**
   * Several of this watcher's containers checked in one observation (a registry webhook's event):
   * one listing, and one applied change set, so a batch notification trigger sends one message.
   */
  async watchContainers(ids: readonly string[]): Promise<ObservedInventory['errors']> {
    return (await this.observeAndApply({ check: true, onlyIds: new Set(ids) })).errors;
  }

  /** One container's runtime state, without registry checks (after a start, stop or restart). */
  async refreshContainer(id: string): Promise<Container | undefined> {
    await this.observeAndApply({ check: false, onlyIds: new Set([id]) });
    return this.deps.store.get(id);
  }

  start(): void {
    this.stopped = false;
    const { config } = this.deps;
    this.job = this.deps.schedule.job(this.jobName, () => this.scheduledCycle(), {
      cron: config.cron,
      jitterMs: config.jitterSeconds * 1000,
    });
    // One cycle soon after start, then the cron (a cycle missed while the hub was down is this one).
    this.job.runAt(this.deps.now() + (this.deps.startDelayMs ?? 2_000));
    this.subscribe();
  }

  /**
   * Keeps the watcher's schedule while its host waits for a full sync (an agent's session resumed
   * after the hub hibernated, docs/workers.md "Edge sockets"): when a cycle falls due, `due` asks
   * for that sync, and the start() it leads to runs the cycle on a refilled host.
   */
  scheduleUntilStarted(due: () => void): void {
    const { config } = this.deps;
    this.job = this.deps.schedule.job(this.jobName, async () => due(), {
      cron: config.cron,
      jitterMs: config.jitterSeconds * 1000,
    });
  }

  /** With `forgetSchedule`, the stored next run goes too: the watcher is gone for good (its agent dropped it). */
  async stop(options: { forgetSchedule?: boolean } = {}): Promise<void> {
    this.stopped = true;
    this.job?.release();
    if (options.forgetSchedule) this.deps.schedule.forget(this.jobName);
    this.events?.close();
    this.inspected?.close();
    for (const timer of this.timers) clearTimeout(timer);
    if (this.debounce) clearTimeout(this.debounce);
    await this.running?.catch(() => undefined);
    await Promise.all(this.gapRefreshes);
  }

  private async scheduledCycle(): Promise<void> {
    await this.watch({ joinCycle: true }).catch((error: unknown) =>
      this.deps.logger.error('watch cycle failed', { watcher: this.id, error: String(error) }),
    );
  }

  /**
   * With `joinCycle`, a registry lookup cycle begun within the jitter window (by another watcher
   * on the same schedule, or by a fleet-wide "watch all") is joined: fleet-wide deduplication.
   * Without it ("watch this host now") the registry is asked afresh.
   */
  private async runCycle(joinCycle: boolean): Promise<WatchResult> {
    const startedAt = this.deps.now();
    const report = (result: 'success' | 'partial' | 'failed') =>
      this.deps.onCycle?.({ durationMs: this.deps.now() - startedAt, result });
    this.deps.lookups?.beginCycle(joinCycle ? { sharedWithinMs: (this.deps.config.jitterSeconds + 60) * 1000 } : {});
    this.prefetchLookups();
    // Listed while the registry answers, whether the cycle needs it first or reconciles with it after:
    // waited for after the cycle, a thousand containers' listing added its whole time to the answer (issue 30).
    const listing = this.deps.host.listContainers(this.deps.config.watchAll);
    listing.catch(() => undefined); // a failure is reported by whoever awaits it
    let observed: ObservedInventory;
    try {
      const fullCycleOf = { agent: this.deps.agent, watcher: this.name };
      observed = await this.observeAndApply({ check: true, listAfter: true, listing }, (fresh) =>
        applyInventory(fresh, this.deps, { fullCycleOf }),
      );
      await this.recheckMovedPolicies(observed.records);
    } catch (error) {
      report('failed');
      throw error;
    }
    // Docker did not even list its containers: nothing was watched.
    if (observed.errors.some((error) => error.phase === 'list')) report('failed');
    else report(observed.errors.length > 0 ? 'partial' : 'success');
    this.lastRunAt = this.deps.now();
    if (observed.unlisted) await this.reconcile(listing);
    if (observed.errors.length > 0)
      this.deps.logger.warn('watch cycle had errors', { watcher: this.id, errors: observed.errors.slice(0, 5) });
    const { unlisted: _reconciledAfter, ...result } = observed;
    return { ...result, records: this.containers(), coalesced: false };
  }

  /**
   * A cycle made from the event-kept inventory is checked against Docker's listing (asked for when
   * the cycle began) before the cycle's callers are answered: a container the listing shows
   * otherwise than the cache (or not at all, or one the cache never saw: started a moment ago, its
   * event not yet applied) is observed and checked now. With the stream open and its events applied
   * there are none; this is what keeps a lost or late event from lasting past the cycle. A change
   * after the listing comes as an event, which drops its cache entry. Never throws.
   */
  private async reconcile(listing: ReturnType<DockerHost['listContainers']>): Promise<void> {
    let summaries: Awaited<ReturnType<DockerHost['listContainers']>>;
    try {
      summaries = await listing;
    } catch (error) {
      this.deps.logger.warn('docker listing failed after a watch cycle', { watcher: this.id, error: String(error) });
      return;
    }
    const inspected = this.inspected;
    if (this.stopped || !inspected?.isLive) return;
    const listed = new Set<string>();
    const stale = new Set<string>();
    for (const summary of summaries) {
      listed.add(summary.id);
      // A record deleted through the API (http-interface §4.5) comes back with the next cycle, as a listed one would.
      if (!inspected.lookup(summary) || !this.deps.store.get(summary.id)) stale.add(summary.id);
    }
    for (const record of this.containers()) if (!listed.has(record.id)) stale.add(record.id);
    if (stale.size === 0) return;
    this.deps.logger.debug('the listing differed from the event-kept inventory', {
      watcher: this.id,
      containers: stale.size,
    });
    for (const id of stale) inspected.changed(id);
    try {
      await this.observeAndApply({ check: true, onlyIds: stale });
    } catch (error) {
      this.deps.logger.warn('reconciling a watch cycle failed', { watcher: this.id, error: String(error) });
    }
  }

  /**
   * Records whose policy an API call changed while the cycle stored them are checked again and
   * stored: the cycle's write does not outlast the change (observeInventory does the same for
   * changes before the write).
   */
  private async recheckMovedPolicies(records: readonly Container[]): Promise<void> {
    const context = this.checkContext(this.deps.now());
    if (!context) return;
    const rechecked = await recheckMoved(records, { ...context, policies: this.deps.policies });
    if (rechecked.size === 0) return;
    await applyInventory(
      { records: [...rechecked.values()], removedIds: [], errors: [], authoritative: false },
      this.deps,
    );
  }

  private checkContext(now: number): Omit<ContainerCheckContext, 'policies'> | undefined {
    const { lookups, store, thresholdDays } = this.deps;
    return lookups ? { lookups, store, thresholdDays, now } : undefined;
  }

  /**
   * The registry requests this cycle will need, started now from the last records (one per
   * distinct reference and policy): they run while Docker lists and builds, so the cycle waits
   * for the slower of the two rather than their sum (issue 18). A container whose image changed
   * meanwhile is checked from its new record; the prefetched answer is then simply unused.
   */
  private prefetchLookups(): void {
    const { lookups, policies } = this.deps;
    if (!lookups) return;
    const seen = new Set<string>();
    for (const record of this.containers()) {
      if (!record.watched) continue;
      const key = `${referenceKey(record.image)}${record.includeTags}\u0000${record.excludeTags}\u0000${record.transformTags}`;
      if (seen.has(key)) continue;
      seen.add(key);
      prefetchContainer(record, { lookups, policies });
    }
  }

  /**
   * An observation, applied, and made again when a label override was set or cleared meanwhile
   * (up to MAX_OBSERVATIONS in all). The override's change re-reads the records it touches as
   * they are stored then; an observation built under the old overrides and stored after that
   * (a watch cycle that was waiting on its registry checks) would otherwise put the old labels'
   * outcome back until the next cycle. Checked right before the write (nothing runs in between)
   * and after it (the change's own write may have been stored first).
   */
  private async observeAndApply(
    options: ObserveCall,
    apply: (observed: ObservedInventory) => Promise<void> = (observed) => applyInventory(observed, this.deps),
  ): Promise<ObservedInventory> {
    const revision = this.deps.labelOverridesRevision ?? (() => 0);
    for (let attempt = 1; ; attempt++) {
      const before = revision();
      const observed = await this.observe(options);
      const last = attempt === MAX_OBSERVATIONS;
      if (revision() !== before && !last) continue;
      await apply(observed);
      if (revision() === before || last) return observed;
    }
  }

  private observe(options: ObserveCall): Promise<ObservedInventory> {
    const { deps } = this;
    const now = deps.now();
    return observeInventory({
      host: deps.host,
      watcher: this.name,
      watcherType: this.type,
      agent: deps.agent,
      watchAll: deps.config.watchAll,
      watchByDefault: deps.config.watchByDefault,
      previous: new Map(this.containers().map((c) => [c.id, c])),
      policies: deps.policies,
      check: options.check ? this.checkContext(now) : undefined,
      onlyIds: options.onlyIds,
      labelOverrides: deps.labelOverrides,
      now,
      inspected: this.inspected,
      listAfter: options.listAfter,
      listing: options.listing,
    });
  }

  /** Docker events, gathered and applied as one targeted refresh; the stream is re-opened with backoff. */
  private subscribe(): void {
    if (this.stopped) return;
    this.inspected?.open();
    this.events = this.deps.host.subscribeEvents({
      onEvent: (event) => {
        this.reconnectMs = RECONNECT_MIN_MS;
        this.inspected?.changed(event.id);
        this.pendingIds.add(event.id);
        if (this.deps.store.get(event.id)) this.pendingKnownIds.add(event.id);
        this.pendingRemovalMark ??= this.deps.store.removalsOnRequest();
        this.debounce ??= setTimeout(() => this.flushEvents(), this.deps.eventDebounceMs ?? 250);
      },
      onClose: (error) => {
        this.inspected?.close();
        if (this.stopped) return;
        this.deps.logger.warn('docker event stream closed; reconnecting', {
          watcher: this.id,
          error: error?.message,
          inMs: this.reconnectMs,
        });
        const timer = setTimeout(
          () => {
            this.timers.delete(timer);
            this.subscribe();
            this.refreshAfterGap();
          },
          this.reconnectMs * (0.5 + Math.random() / 2),
        );
        this.timers.add(timer);
        this.reconnectMs = Math.min(RECONNECT_MAX_MS, this.reconnectMs * 2);
      },
    });
  }

  /**
   * What changed while the event stream was down (a dockerd restart stops and starts containers)
   * shows only in a fresh listing: the records are observed again at once rather than at the next
   * cycle, an hour away by default. Without registry checks, but for containers that appeared in
   * the meantime, which are checked as a new container's event would have them checked. The edge
   * agent does the same (WatcherFeed.onGap).
   */
  private refreshAfterGap(): void {
    if (this.stopped) return;
    // It follows a cycle under way (whose listing may be older than the break's end); a cycle
    // begun from now on follows it (begin).
    const cycle = this.running;
    const refresh = (async () => {
      await cycle?.catch(() => undefined);
      if (this.stopped) return;
      const known = new Set(this.containers().map((record) => record.id));
      const observed = await this.observeAndApply({ check: false });
      const appeared = observed.records.filter((record) => !known.has(record.id)).map((record) => record.id);
      if (appeared.length > 0 && !this.stopped) await this.watchContainers(appeared);
    })()
      .catch((error: unknown) =>
        this.deps.logger.warn('refresh after the event stream reopened failed', {
          watcher: this.id,
          error: String(error),
        }),
      )
      .finally(() => this.gapRefreshes.delete(refresh));
    this.gapRefreshes.add(refresh);
  }

  private flushEvents(): void {
    this.debounce = undefined;
    const ids = this.pendingIds;
    const knownAtEvent = this.pendingKnownIds;
    const removalMark = this.pendingRemovalMark ?? this.deps.store.removalsOnRequest();
    this.pendingRemovalMark = undefined;
    this.pendingIds = new Set();
    this.pendingKnownIds = new Set();
    // New containers get their registry check at once; known ones only their runtime state.
    const unknown = [...ids].some((id) => !this.deps.store.get(id));
    this.observeAndApply({ check: unknown, onlyIds: ids }, (observed) =>
      applyInventory(withoutRemovedSince(observed, { knownAtEvent, removalMark }, this.deps.store), this.deps),
    ).catch((error: unknown) =>
      this.deps.logger.warn('event refresh failed', { watcher: this.id, error: String(error) }),
    );
  }
}

/** What a record's image asks the registry, as a key: kept with the image object, which records share from cycle to cycle. */
const referenceKeys = new WeakMap<Container['image'], string>();

function referenceKey(image: Container['image']): string {
  let key = referenceKeys.get(image);
  if (key === undefined) {
    key = JSON.stringify([
      image.registry.lookupImage,
      image.registry.url,
      image.name,
      image.tag.value,
      image.digest.watch,
    ]);
    referenceKeys.set(image, key);
  }
  return key;
}

/**
 * A record deleted through the API while its event waited (http-interface §4.5) stays deleted until the next
 * watch cycle: an event that came before the deletion must not bring it back. That holds for a record
 * the store had when the event came, and for one it did not have yet: a container's second event
 * (its start after its create) can come before the refresh of its first has stored the record, and
 * the deletion after that store (seen in CI: container-actions' "deletes only the record").
 */
function withoutRemovedSince(
  observed: ObservedInventory,
  since: { knownAtEvent: ReadonlySet<string>; removalMark: number },
  store: ContainerStore,
): ObservedInventory {
  const deletedMeanwhile = (id: string) =>
    store.get(id) === undefined && (since.knownAtEvent.has(id) || store.removedOnRequestSince(id, since.removalMark));
  const records = observed.records.filter((record) => !deletedMeanwhile(record.id));
  return records.length === observed.records.length ? observed : { ...observed, records };
}
