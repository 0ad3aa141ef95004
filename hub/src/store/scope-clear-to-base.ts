import { normalizeBaseKey, type Storage } from 'unstorage';

/**
 * unstorage 1.17's `clear(base)` on a single-driver storage deletes nothing, and the memory
 * driver's own clear ignores the base and wipes everything (unjs/unstorage#801). Every runtime's
 * storage goes through this, so `clear('audit')` removes exactly the `audit:*` keys.
 */
export function scopeClearToBase(storage: Storage): Storage {
  const clearAll = storage.clear.bind(storage);
  storage.clear = async (base, opts) => {
    if (!normalizeBaseKey(base)) return clearAll(base, opts);
    const keys = await storage.getKeys(base);
    await Promise.all(keys.map((key) => storage.removeItem(key)));
  };
  return storage;
}
