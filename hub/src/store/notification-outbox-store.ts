import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { ContainerSchema } from '../../../shared/schemas/container';
import { NOTIFICATION_RULE_IDS } from '../../../shared/schemas/notification-rule';
import { OUTBOX_STATUSES } from '../../../shared/schemas/notification-views';
import { readValidated } from './validated-storage';

const PREFIX = 'notification-outbox';
const keyOf = (id: string) => `${PREFIX}:${id}`;

// The statuses are a contract of the outbox routes too (shared/, which the web UI reads).
export { OUTBOX_STATUSES, type OutboxStatus } from '../../../shared/schemas/notification-views';

export const OutboxEntrySchema = v.object({
  id: v.string(),
  triggerId: v.string(),
  event: v.picklist(NOTIFICATION_RULE_IDS),
  kind: v.picklist(['simple', 'batch']),
  status: v.picklist(OUTBOX_STATUSES),
  attempts: v.pipe(v.number(), v.integer(), v.minValue(0)),
  createdAt: v.string(),
  updatedAt: v.string(),
  /** Absent on dead-letter entries. */
  nextAttemptAt: v.optional(v.string()),
  lastError: v.optional(v.string()),
  /** A manual run (POST /api/v1/triggers/…): shown as such in the outbox. */
  manual: v.optional(v.boolean()),
  /** What the provider is handed; stored whole, never returned by the API (see outboxEntryView). */
  message: v.object({ title: v.string(), body: v.string(), containers: v.array(ContainerSchema) }),
});
export type OutboxEntry = v.InferOutput<typeof OutboxEntrySchema>;

/** The outbox (http-interface §2.9): one stored record per entry, mirrored in memory, written through. */
export interface NotificationOutboxStore {
  load(): Promise<void>;
  all(): OutboxEntry[];
  get(id: string): OutboxEntry | undefined;
  put(entry: OutboxEntry): Promise<void>;
  remove(id: string): Promise<boolean>;
}

export function createNotificationOutboxStore(storage: Storage, logger: Logger): NotificationOutboxStore {
  const entries = new Map<string, OutboxEntry>();
  return {
    async load() {
      entries.clear();
      const keys = await storage.getKeys(PREFIX);
      const loaded = await Promise.all(keys.map((key) => readValidated(storage, key, OutboxEntrySchema, logger)));
      for (const entry of loaded) if (entry) entries.set(entry.id, entry);
    },
    // Ids sort in creation order.
    all: () => [...entries.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    get: (id) => entries.get(id),
    async put(entry) {
      await storage.setItem(keyOf(entry.id), entry);
      entries.set(entry.id, entry);
    },
    async remove(id) {
      if (!entries.has(id)) return false;
      await storage.removeItem(keyOf(id));
      entries.delete(id);
      return true;
    },
  };
}
