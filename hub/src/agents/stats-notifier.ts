/** Record changes are gathered this long before the counts are compared (one event per burst). */
export const STATS_DEBOUNCE_MS = 500;

export interface StatsNotifier {
  /** A record of this agent changed; its counts are compared once the burst settles. */
  changed(agentName: string): void;
  stop(): void;
}

/**
 * dd:agent-stats-changed when an agent's container counts moved (http-interface §6.1: the UI refetches that
 * agent). A full sync writes many records at once; this turns them into one comparison and at
 * most one event.
 */
export function createStatsNotifier(options: {
  /** A stable text of the agent's counts: equal text, no event. */
  countsOf: (agentName: string) => string;
  publish: (agentName: string) => void;
  debounceMs?: number;
}): StatsNotifier {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const last = new Map<string, string>();
  return {
    changed(agentName) {
      if (timers.has(agentName)) return;
      const timer = setTimeout(() => {
        timers.delete(agentName);
        const counts = options.countsOf(agentName);
        if (last.get(agentName) === counts) return;
        last.set(agentName, counts);
        options.publish(agentName);
      }, options.debounceMs ?? STATS_DEBOUNCE_MS);
      timers.set(agentName, timer);
    },
    stop() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
