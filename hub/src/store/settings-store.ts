import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { DEFAULT_SETTINGS, type Settings, type SettingsPatch, SettingsSchema } from '../../../shared/schemas/settings';
import { createSerialQueue, readValidated } from './validated-storage';

const SETTINGS_KEY = 'settings:global';
/** Records written before a field existed lack it: they are read with the default, not dropped. */
const StoredSettingsSchema = v.object({ ...SettingsSchema.entries, approvalRequired: v.optional(v.boolean()) });

export interface SettingsStore {
  load(): Promise<void>;
  get(): Settings;
  /**
   * Applies a patch; resolves with the settings before it and after it, read in the same turn of
   * the write queue, so what one caller changed is never confused with a concurrent write's change.
   */
  patch(patch: SettingsPatch): Promise<{ before: Settings; after: Settings }>;
}

export function createSettingsStore(storage: Storage, logger: Logger): SettingsStore {
  // Frozen, and handed out as is: it is read per container in every watch cycle (issue 18).
  let current: Settings = Object.freeze({ ...DEFAULT_SETTINGS });
  const serial = createSerialQueue();
  return {
    async load() {
      const stored = await readValidated(storage, SETTINGS_KEY, StoredSettingsSchema, logger);
      current = Object.freeze({ ...DEFAULT_SETTINGS, ...stored, approvalRequired: stored?.approvalRequired ?? false });
    },
    get: () => current,
    patch: (patch) =>
      serial(async () => {
        const before = current;
        const next: Settings = { ...current };
        if (patch.internetlessMode !== undefined) next.internetlessMode = patch.internetlessMode;
        if (patch.updateMode !== undefined) next.updateMode = patch.updateMode;
        if (patch.approvalRequired !== undefined) next.approvalRequired = patch.approvalRequired;
        await storage.setItem(SETTINGS_KEY, next);
        current = Object.freeze(next);
        return { before, after: current };
      }),
  };
}
