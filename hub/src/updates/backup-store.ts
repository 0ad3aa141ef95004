import type { Storage } from 'unstorage';
import * as v from 'valibot';
import { ContainerSpecSchema } from '../../../shared/docker/container-spec-schema';
import type { Logger } from '../../../shared/logging/logger';
import { BackupViewSchema } from '../../../shared/schemas/update-views';
import { createSerialQueue, readValidated } from '../store/validated-storage';

const PREFIX = 'update-backups';
const keyOf = (id: string) => `${PREFIX}:${id}`;

/**
 * An image backup (http-interface §2.7): what a container ran before an update, kept so a rollback can go
 * back to it. Besides those fields: the local image id (kept from pruning while the backup
 * lives), the full reference, the configuration, and the identity that outlives container ids.
 */
export const ImageBackupSchema = v.object({
  ...BackupViewSchema.entries,
  /** `agent::watcher::name` (shared/containers/container-identity.ts). */
  identity: v.string(),
  spec: v.exactOptional(ContainerSpecSchema),
});
export type ImageBackup = v.InferOutput<typeof ImageBackupSchema>;

/** The backup as the API shows it (http-interface §2.7), without the stored configuration. */
export function publicBackup(backup: ImageBackup) {
  const { spec: _spec, identity: _identity, ...shown } = backup;
  return shown;
}

const newestFirst = (a: ImageBackup, b: ImageBackup) =>
  a.timestamp === b.timestamp ? (a.id < b.id ? 1 : -1) : a.timestamp < b.timestamp ? 1 : -1;

export interface BackupStore {
  load(): Promise<void>;
  get(id: string): ImageBackup | undefined;
  /** Newest first. */
  all(): ImageBackup[];
  ofIdentity(identity: string): ImageBackup[];
  /** Adds one, then keeps the newest `keep` of that container; answers the backups dropped. */
  add(backup: ImageBackup, keep: number): Promise<ImageBackup[]>;
}

export function createBackupStore(storage: Storage, logger: Logger): BackupStore {
  const backups = new Map<string, ImageBackup>();
  const serial = createSerialQueue();
  const ofIdentity = (identity: string) =>
    [...backups.values()].filter((backup) => backup.identity === identity).sort(newestFirst);
  return {
    async load() {
      backups.clear();
      const keys = await storage.getKeys(PREFIX);
      const loaded = await Promise.all(keys.map((key) => readValidated(storage, key, ImageBackupSchema, logger)));
      for (const backup of loaded) if (backup) backups.set(backup.id, backup);
    },
    get: (id) => backups.get(id),
    all: () => [...backups.values()].sort(newestFirst),
    ofIdentity,
    add(backup, keep) {
      return serial(async () => {
        const dropped: ImageBackup[] = [];
        if (keep > 0) {
          await storage.setItem(keyOf(backup.id), backup);
          backups.set(backup.id, backup);
        }
        for (const old of ofIdentity(backup.identity).slice(keep)) {
          await storage.removeItem(keyOf(old.id));
          backups.delete(old.id);
          dropped.push(old);
        }
        return dropped;
      });
    },
  };
}
