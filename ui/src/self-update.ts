import { signal } from '@preact/signals';
import type { UiEventData } from '../../shared/schemas/ui-events';
import { call } from './api';

/**
 * The hub updating its own container (docs/updates.md "Self-update"), as the page follows it: the
 * announcement arrives on the live stream, the page acks it with the credentials of its
 * dd:connected, says the hub is restarting, and polls the status route (no sign-in needed, so it
 * works while the new hub's session store is still loading) until the new hub, or the restored old
 * one, answers with the outcome.
 */
export type SelfUpdateView =
  | { opId: string; stage: 'restarting'; phase?: string }
  | { opId: string; stage: 'done'; status: string; version?: string };

export const selfUpdate = signal<SelfUpdateView | undefined>(undefined);

const POLL_MS = 1_000;
const GIVE_UP_MS = 15 * 60_000;
const TERMINAL = new Set(['succeeded', 'rolled-back', 'failed']);

let credentials: UiEventData<'dd:connected'> | undefined;

/** The latest dd:connected: a new one with every (re)connected stream. */
export function noteConnected(data: UiEventData<'dd:connected'>): void {
  credentials = data;
}

export async function followSelfUpdate(event: UiEventData<'dd:self-update'>): Promise<void> {
  const { opId } = event;
  selfUpdate.value = { opId, stage: 'restarting' };
  if (event.requiresAck && credentials) {
    await call(`/events/ui/self-update/${encodeURIComponent(opId)}/ack`, { method: 'POST', body: credentials }).catch(
      () => undefined,
    );
  }
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline && selfUpdate.value?.opId === opId) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const status: { status: string; phase: string } | undefined = await call<{ status: string; phase: string }>(
      `/self-update/${encodeURIComponent(opId)}/status`,
    ).catch(() => undefined);
    if (!status) continue;
    if (!TERMINAL.has(status.status)) {
      selfUpdate.value = { opId, stage: 'restarting', phase: status.phase };
      continue;
    }
    const app = await call<{ version: string }>('/app').catch(() => undefined);
    selfUpdate.value = { opId, stage: 'done', status: status.status, ...(app && { version: app.version }) };
    return;
  }
}

export function dismissSelfUpdate(): void {
  selfUpdate.value = undefined;
}
