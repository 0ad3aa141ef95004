import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { ContainerSchema } from '../../../shared/schemas/container';
import { NOTIFICATION_RULE_IDS } from '../../../shared/schemas/notification-rule';
import { readValidated } from './validated-storage';

const PREFIX = 'notification-digest';
const keyOf = (triggerId: string) => `${PREFIX}:${encodeURIComponent(triggerId)}`;

/** A digest keeps at most this many items per trigger; the oldest go first. */
export const DIGEST_MAX_ITEMS = 1000;

const DigestItemSchema = v.object({
  event: v.picklist(NOTIFICATION_RULE_IDS),
  /** Identity and version: an item for the same container and version replaces the older one. */
  key: v.string(),
  at: v.string(),
  container: v.optional(ContainerSchema),
  /** Extra template values of events without a container (the agent's name). */
  extras: v.optional(v.record(v.string(), v.unknown())),
});
export type DigestItem = v.InferOutput<typeof DigestItemSchema>;

const DigestSchema = v.object({ triggerId: v.string(), items: v.array(DigestItemSchema) });

/** MODE=digest: what each trigger collected since its last scheduled send, kept across restarts. */
export interface NotificationDigestStore {
  load(): Promise<void>;
  items(triggerId: string): DigestItem[];
  add(triggerId: string, items: readonly DigestItem[]): Promise<void>;
  /** Takes everything collected, leaving the digest empty. */
  take(triggerId: string): Promise<DigestItem[]>;
}

export function createNotificationDigestStore(storage: Storage, logger: Logger): NotificationDigestStore {
  const digests = new Map<string, DigestItem[]>();
  const save = async (triggerId: string, items: DigestItem[]) => {
    if (items.length === 0) await storage.removeItem(keyOf(triggerId));
    else await storage.setItem(keyOf(triggerId), { triggerId, items });
    digests.set(triggerId, items);
  };
  return {
    async load() {
      digests.clear();
      for (const key of await storage.getKeys(PREFIX)) {
        const digest = await readValidated(storage, key, DigestSchema, logger);
        if (digest) digests.set(digest.triggerId, digest.items);
      }
    },
    items: (triggerId) => [...(digests.get(triggerId) ?? [])],
    async add(triggerId, items) {
      const keys = new Set(items.map((item) => `${item.event}|${item.key}`));
      const kept = (digests.get(triggerId) ?? []).filter((item) => !keys.has(`${item.event}|${item.key}`));
      await save(triggerId, [...kept, ...items].slice(-DIGEST_MAX_ITEMS));
    },
    async take(triggerId) {
      const items = digests.get(triggerId) ?? [];
      if (items.length > 0) await save(triggerId, []);
      return items;
    },
  };
}
