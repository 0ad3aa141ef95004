/**
 * A Map that forgets its least recently used entries past a size, with an optional time to live.
 * Used for facts worth keeping across watch cycles (digest-addressed manifests and configs never
 * change) and for values shared across a fleet's records (one string or frozen object each).
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert so eviction drops the least recently used, not the oldest written.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, ttlMs = Number.POSITIVE_INFINITY): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Shares one in-flight promise per key; a failure is not remembered, so the next call retries. */
export function memoizePromise<K, V>(store: Map<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
  const existing = store.get(key);
  if (existing) return existing;
  const pending = load();
  store.set(key, pending);
  return pending;
}
