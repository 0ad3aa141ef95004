import { type LogEntry, type LogLevel, logLevelRank } from '../schemas/log-entry';

export interface LogQuery {
  /** Minimum level: entries at or above it. */
  level?: LogLevel | undefined;
  /** Substring of the component name. */
  component?: string | undefined;
  /** Only entries strictly later than this Unix-millisecond instant. */
  since?: number | undefined;
  /** At most this many of the most recent matching entries. */
  tail?: number | undefined;
}

export type LogListener = (entry: LogEntry) => void;

export interface LogRing {
  readonly enabled: boolean;
  push(entry: LogEntry): void;
  /** Matching entries, oldest first. */
  query(query: LogQuery): LogEntry[];
  /** Sorted unique component names of the buffered entries. */
  components(): string[];
  /** Live entries as they are pushed; returns the unsubscribe function. */
  subscribe(listener: LogListener): () => void;
}

export function matchesLogQuery(entry: LogEntry, query: LogQuery): boolean {
  if (query.level !== undefined && logLevelRank(entry.level) < logLevelRank(query.level)) return false;
  if (query.component !== undefined && !entry.component.includes(query.component)) return false;
  if (query.since !== undefined && entry.timestamp <= query.since) return false;
  return true;
}

/**
 * The in-memory ring of the last `capacity` log entries (http-interface §4.6). When disabled it keeps
 * nothing, but live subscribers are still served so the stream keeps working.
 */
export function createLogRing(capacity = 1000, enabled = true): LogRing {
  const slots: (LogEntry | undefined)[] = new Array(capacity);
  let next = 0;
  let size = 0;
  const listeners = new Set<LogListener>();

  const ordered = (): LogEntry[] => {
    const out: LogEntry[] = [];
    const start = (next - size + capacity) % capacity;
    for (let i = 0; i < size; i++) {
      const entry = slots[(start + i) % capacity];
      if (entry) out.push(entry);
    }
    return out;
  };

  return {
    enabled,
    push(entry) {
      if (enabled) {
        slots[next] = entry;
        next = (next + 1) % capacity;
        size = Math.min(size + 1, capacity);
      }
      for (const listener of listeners) {
        try {
          listener(entry);
        } catch {
          // A broken subscriber (a closed socket) must not stop logging for everyone else.
        }
      }
    },
    query(query) {
      const matching = ordered().filter((entry) => matchesLogQuery(entry, query));
      const tail = query.tail ?? matching.length;
      return tail >= matching.length ? matching : matching.slice(matching.length - tail);
    },
    components() {
      return [...new Set(ordered().map((entry) => entry.component))].sort();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
