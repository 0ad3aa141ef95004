/**
 * How far the stored check time of a source may lag the one in memory. A warm cycle that finds
 * nothing changed moves only its records' checkedAt; storing that every time was the cycle's one
 * write (an fsync on the fs store, a transaction on Workers) for a time that matters only after a
 * restart, until the first cycle there (2 s after start) stamps the records again (issue 30).
 */
export const STAMP_REFRESH_MS = 15 * 60_000;

interface Stamp {
  at: string;
  except: ReadonlySet<string>;
}

/** The check-time stamps as stored, by key: whether a new one is worth a write. */
export class StoredStamps {
  private readonly stamps = new Map<string, Stamp>();

  clear(): void {
    this.stamps.clear();
  }

  remember(key: string, at: string, except: readonly string[]): void {
    this.stamps.set(key, { at, except: new Set(except) });
  }

  /**
   * A stamp is written when the source has none stored, when the records it leaves out differ
   * (the stored one would give its time to a record this cycle did not check), or when the stored
   * one is STAMP_REFRESH_MS old.
   */
  due(key: string, at: string, except: readonly string[]): boolean {
    const stored = this.stamps.get(key);
    if (!stored) return true;
    if (stored.except.size !== except.length || except.some((id) => !stored.except.has(id))) return true;
    const age = Date.parse(at) - Date.parse(stored.at);
    return !(age >= 0 && age < STAMP_REFRESH_MS);
  }
}
