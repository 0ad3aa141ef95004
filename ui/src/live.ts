import type { UiEventData } from '../../shared/schemas/ui-events';
import { groupPolicyChanged, rolloutChanged } from './admin-events';
import { api, type Container } from './api';
import { scanCompleted, scanCycleComplete } from './scan-progress';
import { followSelfUpdate, noteConnected } from './self-update';
import {
  agents,
  approvalsChanged,
  failOperation,
  loadPendingApprovals,
  putContainer,
  reloadState,
  removeContainer,
  stream,
  trackOperation,
} from './state';

const STREAM = '/api/v1/events/ui';
const RETRY_MS = 2_000;

let source: EventSource | undefined;
let lastEventId: string | undefined;
let retry: ReturnType<typeof setTimeout> | undefined;

function parse<T>(event: Event): T {
  const message = event as MessageEvent<string>;
  if (message.lastEventId) lastEventId = message.lastEventId;
  return JSON.parse(message.data) as T;
}

function on<T>(es: EventSource, type: string, handle: (data: T) => void): void {
  es.addEventListener(type, (event) => handle(parse<T>(event)));
}

function refreshAgents(): void {
  api.agents().then(
    (page) => {
      agents.value = page.data;
    },
    () => undefined,
  );
}

/**
 * One connection to the UI stream for the whole page. The browser resumes it with Last-Event-ID
 * after a network error; when it gives up (an HTTP error answer), a new one starts from the last id
 * seen (the query parameter the spec offers), and a replay gap or a restarted hub reloads state.
 */
export function connectLive(): void {
  disconnectLive();
  const url = lastEventId ? `${STREAM}?last-event-id=${encodeURIComponent(lastEventId)}` : STREAM;
  const es = new EventSource(url);
  source = es;
  es.addEventListener('open', () => {
    stream.value = 'open';
  });
  es.addEventListener('error', () => {
    if (source !== es) return;
    stream.value = 'lost';
    if (es.readyState === EventSource.CLOSED) {
      // An HTTP error answer: perhaps the session ended (the call then sends the person to sign in).
      retry = setTimeout(() => {
        api.user().then(connectLive, (error: { status?: number }) => {
          if (error.status === 401) return;
          connectLive();
        });
      }, RETRY_MS);
    }
  });
  on<Container>(es, 'dd:container-added', putContainer);
  on<Container>(es, 'dd:container-updated', putContainer);
  on<{ id: string }>(es, 'dd:container-removed', (container) => removeContainer(container.id));
  on<UiEventData<'dd:update-operation-changed'>>(es, 'dd:update-operation-changed', trackOperation);
  on<UiEventData<'dd:update-failed'>>(es, 'dd:update-failed', failOperation);
  const approvalEvent = () => {
    approvalsChanged.value += 1;
    void loadPendingApprovals();
  };
  on<unknown>(es, 'dd:approval-requested', approvalEvent);
  on<unknown>(es, 'dd:approval-updated', approvalEvent);
  on<UiEventData<'dd:scan-completed'>>(es, 'dd:scan-completed', scanCompleted);
  on<UiEventData<'dd:rollout-started'>>(es, 'dd:rollout-started', rolloutChanged);
  on<UiEventData<'dd:rollout-updated'>>(es, 'dd:rollout-updated', rolloutChanged);
  on<unknown>(es, 'dd:group-policy-updated', groupPolicyChanged);
  on<UiEventData<'security-scan-cycle-complete'>>(es, 'security-scan-cycle-complete', scanCycleComplete);
  on<unknown>(es, 'dd:agent-connected', refreshAgents);
  on<unknown>(es, 'dd:agent-disconnected', refreshAgents);
  on<unknown>(es, 'dd:agent-stats-changed', refreshAgents);
  on<UiEventData<'dd:resync-required'>>(es, 'dd:resync-required', () => void reloadState());
  on<UiEventData<'dd:connected'>>(es, 'dd:connected', noteConnected);
  on<UiEventData<'dd:self-update'>>(es, 'dd:self-update', (event) => void followSelfUpdate(event));
  on<unknown>(es, 'dd:heartbeat', () => undefined);
}

export function disconnectLive(): void {
  clearTimeout(retry);
  source?.close();
  source = undefined;
}
