import type { Agent } from '../../../shared/schemas/agent';

/**
 * The notification events of http-interface §6.3 that agents raise. Delivery (rules, triggers, the outbox)
 * belongs to the notification capability: it subscribes here, and nothing here knows about it.
 */
export interface AgentNotificationEvent {
  event: 'agent-disconnect' | 'agent-reconnect';
  agent: Agent;
  /** Unix ms. */
  at: number;
}

export type AgentEventListener = (event: AgentNotificationEvent) => void;

export interface AgentEvents {
  emit(event: AgentNotificationEvent): void;
  /** Returns the unsubscribe function. */
  on(listener: AgentEventListener): () => void;
}

/** A listener that throws is reported and never stops the others (nor the session that raised the event). */
export function createAgentEvents(
  onListenerError: (error: unknown, event: AgentNotificationEvent) => void,
): AgentEvents {
  const listeners = new Set<AgentEventListener>();
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          onListenerError(error, event);
        }
      }
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
