import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { createSerialQueue, readValidated } from './validated-storage';

const KEY = 'notification-bell:read';
/** Single entries marked read; older marks are dropped first (a "mark all" covers them anyway). */
const MAX_READ_IDS = 1000;

const BellReadSchema = v.object({
  /** Every entry with an id at or below this one is read ("mark all as read"). */
  readThrough: v.optional(v.string()),
  readIds: v.array(v.string()),
});

/**
 * Read state of the in-app bell. The bell lists audit entries (http-interface §2.8: audit-backed), whose ids
 * sort in time order, so "everything up to here is read" is one id; single reads are a short list.
 * One state for the hub: the bell belongs to the installation, not to one signed-in user.
 */
export interface NotificationBellStore {
  load(): Promise<void>;
  isRead(auditId: string): boolean;
  markRead(ids: readonly string[]): Promise<void>;
  markAllRead(throughId: string): Promise<void>;
}

export function createNotificationBellStore(storage: Storage, logger: Logger): NotificationBellStore {
  let readThrough: string | undefined;
  let readIds = new Set<string>();
  const serial = createSerialQueue();
  const save = () => storage.setItem(KEY, { ...(readThrough !== undefined && { readThrough }), readIds: [...readIds] });
  return {
    async load() {
      const stored = await readValidated(storage, KEY, BellReadSchema, logger);
      readThrough = stored?.readThrough;
      readIds = new Set(stored?.readIds ?? []);
    },
    isRead: (id) => (readThrough !== undefined && id <= readThrough) || readIds.has(id),
    markRead: (ids) =>
      serial(async () => {
        for (const id of ids) if (readThrough === undefined || id > readThrough) readIds.add(id);
        readIds = new Set([...readIds].slice(-MAX_READ_IDS));
        await save();
      }),
    markAllRead: (throughId) =>
      serial(async () => {
        if (readThrough === undefined || throughId > readThrough) readThrough = throughId;
        readIds = new Set([...readIds].filter((id) => id > (readThrough as string)));
        await save();
      }),
  };
}
