import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { readValidated } from './validated-storage';

const PREFIX = 'notification-once';
// Trigger ids and identities hold `.` and `::`: encoded so each stays one key segment on every driver.
const keyOf = (triggerId: string, identity: string) => `${PREFIX}:${encodeURIComponent(`${triggerId}|${identity}`)}`;

const OnceRecordSchema = v.object({
  triggerId: v.string(),
  identity: v.string(),
  /** The remote tag or digest last notified for this identity through this trigger. */
  remoteValue: v.string(),
  at: v.string(),
});

/**
 * ONCE (spec: one notification per new version): per trigger and container identity
 * (`agent::watcher::name`, so a re-created container is the same one), the version last sent.
 * One record per pair, overwritten by a newer version, so the store grows with the fleet only.
 */
export interface NotificationOnceStore {
  load(): Promise<void>;
  wasNotified(triggerId: string, identity: string, remoteValue: string): boolean;
  remember(triggerId: string, identity: string, remoteValue: string, at: number): Promise<void>;
}

export function createNotificationOnceStore(storage: Storage, logger: Logger): NotificationOnceStore {
  const sent = new Map<string, string>();
  return {
    async load() {
      sent.clear();
      for (const key of await storage.getKeys(PREFIX)) {
        const record = await readValidated(storage, key, OnceRecordSchema, logger);
        if (record) sent.set(keyOf(record.triggerId, record.identity), record.remoteValue);
      }
    },
    wasNotified: (triggerId, identity, remoteValue) => sent.get(keyOf(triggerId, identity)) === remoteValue,
    async remember(triggerId, identity, remoteValue, at) {
      const key = keyOf(triggerId, identity);
      if (sent.get(key) === remoteValue) return;
      await storage.setItem(key, { triggerId, identity, remoteValue, at: new Date(at).toISOString() });
      sent.set(key, remoteValue);
    },
  };
}
