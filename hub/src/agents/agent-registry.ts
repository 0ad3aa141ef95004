import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import { createSerialQueue, readValidated } from '../store/validated-storage';
import { type AgentDescription, AgentDescriptionSchema } from './agent-view';

const PREFIX = 'agents';
const keyOf = (name: string) => `${PREFIX}:${name}`;

/**
 * The agents the hub has known (`agents:<name>`): description, watchers, key and lastSeen, so a
 * restarted hub lists them (disconnected) before they return. lastSeen moves with every frame in
 * memory and reaches storage lazily (flushLastSeen), as a write per heartbeat would cost too much.
 */
export interface AgentRegistry {
  load(): Promise<void>;
  get(name: string): AgentDescription | undefined;
  all(): AgentDescription[];
  save(description: AgentDescription): Promise<void>;
  /** lastSeen in memory only. */
  touch(name: string, at: number): void;
  /** Writes the descriptions whose lastSeen moved since they were last stored, if at least `olderThanMs` ago. */
  flushLastSeen(now: number, olderThanMs: number): Promise<void>;
}

export function createAgentRegistry(storage: Storage, logger: Logger): AgentRegistry {
  const agents = new Map<string, AgentDescription>();
  const storedLastSeen = new Map<string, { lastSeen: string; at: number }>();
  const serial = createSerialQueue();

  const write = (description: AgentDescription, at: number) => {
    storedLastSeen.set(description.name, { lastSeen: description.lastSeen, at });
    return serial(() => storage.setItem(keyOf(description.name), description));
  };

  return {
    async load() {
      agents.clear();
      for (const key of await storage.getKeys(PREFIX)) {
        const description = await readValidated(storage, key, AgentDescriptionSchema, logger);
        if (!description || key !== keyOf(description.name)) continue;
        agents.set(description.name, description);
        storedLastSeen.set(description.name, { lastSeen: description.lastSeen, at: 0 });
      }
    },
    get: (name) => agents.get(name),
    all: () => [...agents.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
    async save(description) {
      agents.set(description.name, description);
      await write(description, Date.parse(description.lastSeen));
    },
    touch(name, at) {
      const description = agents.get(name);
      if (description) agents.set(name, { ...description, lastSeen: new Date(at).toISOString() });
    },
    async flushLastSeen(now, olderThanMs) {
      const due = [...agents.values()].filter((description) => {
        const stored = storedLastSeen.get(description.name);
        return stored?.lastSeen !== description.lastSeen && now - (stored?.at ?? 0) >= olderThanMs;
      });
      await Promise.all(due.map((description) => write(description, now)));
    },
  };
}
