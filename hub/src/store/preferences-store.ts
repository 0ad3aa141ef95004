import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { readValidated } from './validated-storage';

/** What a stored record must be: an object of JSON values (the API bounds its keys and its size on the way in). */
const StoredPreferencesSchema = v.record(v.string(), v.unknown());
export type Preferences = v.InferOutput<typeof StoredPreferencesSchema>;

// Usernames may hold ':' and other separators: encoded so each stays one key segment on every driver.
const preferencesKey = (username: string) => `preferences:${encodeURIComponent(username)}`;

/** Each user's UI preferences (http-interface §4.12), one record per user; read from storage each time, as only the UI asks for them. */
export interface PreferencesStore {
  /** The user's preferences; {} when none are stored or the record fails validation. */
  get(username: string): Promise<Preferences>;
  /** Replaces the user's preferences with these. */
  put(username: string, preferences: Preferences): Promise<void>;
}

export function createPreferencesStore(storage: Storage, logger: Logger): PreferencesStore {
  return {
    get: async (username) =>
      (await readValidated(storage, preferencesKey(username), StoredPreferencesSchema, logger)) ?? {},
    put: async (username, preferences) => {
      await storage.setItem(preferencesKey(username), preferences);
    },
  };
}
