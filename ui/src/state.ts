import { batch, computed, signal } from '@preact/signals';
import type { UiEventData } from '../../shared/schemas/ui-events';
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
/** Update operations by container name, with the phases seen so far. */
export const operations = signal<ReadonlyMap<string, Operation>>(new Map());
/** The event stream: `connecting` at first, `open`, or `lost` while the hub cannot be reached. */
export const stream = signal<'connecting' | 'open' | 'lost'>('connecting');
export const loadError = signal<string | undefined>(undefined);

export const containerList = computed(() => [...containers.value.values()]);

const PAGE = 200;

/** Every container, page by page (the list route's maximum page), replacing what was held. */
export async function loadContainers(): Promise<void> {
  const all = new Map<string, Container>();
  for (let offset = 0; ; offset += PAGE) {
    const page = await api.containers(
      new URLSearchParams({ limit: String(PAGE), offset: String(offset), sort: 'name' }),
    );
    for (const container of page.data) all.set(container.id, container);
    if (!page.hasMore || page.data.length === 0) break;
  }
  batch(() => {
    containers.value = all;
    containersLoaded.value = true;
  });
}

export async function loadAgents(): Promise<void> {
  agents.value = (await api.agents()).data;
}

/** Everything the views show, from scratch: at start and when the stream says replay is impossible. */
export async function reloadState(): Promise<void> {
  try {
    await Promise.all([loadContainers(), loadAgents()]);
    loadError.value = undefined;
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401) loadError.value = error.message;
  }
}

export function putContainer(container: Container): void {
  const next = new Map(containers.value);
  next.set(container.id, container);
  containers.value = next;
}

export function removeContainer(id: string): void {
  if (!containers.value.has(id)) return;
  const next = new Map(containers.value);
  next.delete(id);
  containers.value = next;
}

export function trackOperation(event: UiEventData<'dd:update-operation-changed'>): void {
  const previous = operations.value.get(event.containerName);
  const same = previous?.operationId === event.operationId;
  const phases = same ? [...previous.phases] : [];
  if (phases.at(-1) !== event.phase) phases.push(event.phase);
  const next = new Map(operations.value);
  next.set(event.containerName, { ...event, phases, error: same ? previous.error : undefined });
  operations.value = next;
}

export function failOperation(event: UiEventData<'dd:update-failed'>): void {
  const previous = operations.value.get(event.containerName);
  if (!previous || previous.operationId !== event.operationId) return;
  const next = new Map(operations.value);
  next.set(event.containerName, { ...previous, error: event.rollbackReason ?? event.error });
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
