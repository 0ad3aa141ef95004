import { batch, computed, signal } from '@preact/signals';
import { containerIdentity } from '../../shared/containers/container-identity';
import type { UiEventData } from '../../shared/schemas/ui-events';
import { adminApi } from './admin-api';
import { type Agent, ApiError, type AuthStatus, api, type Container, type CurrentUser } from './api';

export type Session =
  | { state: 'loading' }
  | { state: 'signed-out'; status: AuthStatus | undefined; message?: string | undefined }
  | { state: 'signed-in'; status: AuthStatus; user: CurrentUser };

export type Operation = UiEventData<'dd:update-operation-changed'> & { phases: string[]; error?: string | undefined };

export const session = signal<Session>({ state: 'loading' });
/** The whole fleet by id: loaded in pages, then kept current by the event stream. */
export const containers = signal<ReadonlyMap<string, Container>>(new Map());
export const containersLoaded = signal(false);
export const agents = signal<readonly Agent[]>([]);
/**
 * Update operations by container identity (agent, watcher, name: the key an update's re-created
 * container keeps, and two agents' `nginx` do not share), with the phases seen so far.
 */
export const operations = signal<ReadonlyMap<string, Operation>>(new Map());
/** The event stream: `connecting` at first, `open`, or `lost` while the hub cannot be reached. */
export const stream = signal<'connecting' | 'open' | 'lost'>('connecting');
export const loadError = signal<string | undefined>(undefined);
/** Approvals waiting for a decision (the navigation shows the count). */
export const pendingApprovals = signal(0);
/** Moves at every approval event of the live stream: the approvals view reloads on it. */
export const approvalsChanged = signal(0);

export const containerList = computed(() => [...containers.value.values()]);

const PAGE = 200;
/** Pages asked at once after the first: a 10,000-container fleet is 50 pages. */
const PARALLEL_PAGES = 4;

/**
 * Changes the stream delivered while the pages were read (null: removed). A fleet of 10,000 takes
 * seconds to read; an event in that time is newer than the page that held the container.
 */
let changesDuringLoad: Map<string, Container | null> | undefined;

/**
 * Every container, page by page (the list route's maximum page), replacing what was held. The first
 * page is shown at once, so a large fleet's list paints before the rest has arrived (docs/ui.md).
 */
export async function loadContainers(): Promise<void> {
  const changedMeanwhile = new Map<string, Container | null>();
  changesDuringLoad = changedMeanwhile;
  try {
    await readAllPages(changedMeanwhile);
  } finally {
    if (changesDuringLoad === changedMeanwhile) changesDuringLoad = undefined;
  }
}

async function readAllPages(changedMeanwhile: Map<string, Container | null>): Promise<void> {
  const page = (offset: number) =>
    api.containers(new URLSearchParams({ limit: String(PAGE), offset: String(offset), sort: 'name' }));
  const first = await page(0);
  const all = new Map<string, Container>();
  for (const container of first.data) all.set(container.id, container);
  if (first.hasMore) {
    containers.value = new Map(all);
    const offsets: number[] = [];
    for (let offset = PAGE; offset < first.total; offset += PAGE) offsets.push(offset);
    let more = false;
    for (let start = 0; start < offsets.length; start += PARALLEL_PAGES) {
      const answers = await Promise.all(offsets.slice(start, start + PARALLEL_PAGES).map(page));
      for (const answer of answers) for (const container of answer.data) all.set(container.id, container);
      more = answers.at(-1)?.hasMore ?? false;
    }
    // The fleet grew while it was read: the rest, one page after another.
    for (let offset = (offsets.at(-1) ?? 0) + PAGE; more; offset += PAGE) {
      const answer = await page(offset);
      for (const container of answer.data) all.set(container.id, container);
      more = answer.hasMore && answer.data.length > 0;
    }
  }
  for (const [id, container] of changedMeanwhile) container ? all.set(id, container) : all.delete(id);
  batch(() => {
    containers.value = all;
    containersLoaded.value = true;
  });
}

export async function loadAgents(): Promise<void> {
  agents.value = (await api.agents()).data;
}

/** Everything the views show, from scratch: at start and when the stream says replay is impossible. */
/** The count of approvals that wait; a failure leaves the last count (it is a hint, not a view). */
export async function loadPendingApprovals(): Promise<void> {
  try {
    const summary = await adminApi.approvalSummary();
    pendingApprovals.value = summary.pending;
  } catch {
    // The views show errors; the navigation's count stays as it was.
  }
}

export async function reloadState(): Promise<void> {
  void loadPendingApprovals();
  try {
    await Promise.all([loadContainers(), loadAgents()]);
    loadError.value = undefined;
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401) loadError.value = error.message;
  }
}

export function putContainer(container: Container): void {
  changesDuringLoad?.set(container.id, container);
  const next = new Map(containers.value);
  next.set(container.id, container);
  containers.value = next;
}

export function removeContainer(id: string): void {
  changesDuringLoad?.set(id, null);
  if (!containers.value.has(id)) return;
  const next = new Map(containers.value);
  next.delete(id);
  containers.value = next;
}

/** The key of a container's operation in `operations`: from a container record or an update event. */
export function operationKey(of: Pick<Container, 'agent' | 'watcher' | 'name'> | EventHost): string {
  return containerIdentity({
    agent: of.agent,
    watcher: of.watcher,
    name: 'containerName' in of ? of.containerName : of.name,
  });
}
type EventHost = Pick<UiEventData<'dd:update-operation-changed'>, 'agent' | 'watcher' | 'containerName'>;

export function trackOperation(event: UiEventData<'dd:update-operation-changed'>): void {
  const key = operationKey(event);
  const previous = operations.value.get(key);
  const same = previous?.operationId === event.operationId;
  const phases = same ? [...previous.phases] : [];
  if (phases.at(-1) !== event.phase) phases.push(event.phase);
  const next = new Map(operations.value);
  next.set(key, { ...event, phases, error: same ? previous.error : undefined });
  operations.value = next;
}

export function failOperation(event: UiEventData<'dd:update-failed'>): void {
  const key = operationKey(event);
  const previous = operations.value.get(key);
  if (!previous || previous.operationId !== event.operationId) return;
  const next = new Map(operations.value);
  next.set(key, { ...previous, error: event.rollbackReason ?? event.error });
  operations.value = next;
}

export function signedOut(message?: string): void {
  const status = session.value.state === 'loading' ? undefined : session.value.status;
  batch(() => {
    session.value = { state: 'signed-out', status, message };
    containers.value = new Map();
    containersLoaded.value = false;
    agents.value = [];
  });
}
