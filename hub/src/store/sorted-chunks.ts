/**
 * A sorted list kept in chunks of at most `CHUNK` entries: insert and delete cost a binary search
 * and a splice inside one chunk, so keeping 200,000 entries sorted under a steady stream of changes
 * never moves the whole array (a flat array would move 100,000 entries per change on average).
 * Reading in order from an offset walks the chunks' sizes first, then only the entries it returns.
 */
const CHUNK = 512;

export class SortedChunks<T> {
  private chunks: T[][] = [];
  private count = 0;

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.count;
  }

  /** Replaces the contents: one sort, for a bulk load. */
  reset(entries: T[]): void {
    entries.sort(this.compare);
    this.chunks = [];
    for (let start = 0; start < entries.length; start += CHUNK) this.chunks.push(entries.slice(start, start + CHUNK));
    this.count = entries.length;
  }

  insert(entry: T): void {
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      this.count = 1;
      return;
    }
    const at = this.chunkFor(entry);
    const chunk = this.chunks[at] as T[];
    chunk.splice(this.positionIn(chunk, entry), 0, entry);
    this.count += 1;
    if (chunk.length > CHUNK * 2) this.chunks.splice(at, 1, chunk.slice(0, CHUNK), chunk.slice(CHUNK));
  }

  /** Removes the entry equal to `entry` under the comparator; false when there is none. */
  delete(entry: T): boolean {
    if (this.chunks.length === 0) return false;
    const at = this.chunkFor(entry);
    const chunk = this.chunks[at] as T[];
    const position = this.positionIn(chunk, entry);
    if (position >= chunk.length || this.compare(chunk[position] as T, entry) !== 0) return false;
    chunk.splice(position, 1);
    this.count -= 1;
    if (chunk.length === 0) this.chunks.splice(at, 1);
    return true;
  }

  /** Entries in order (or reverse order), for as long as `visit` returns true. */
  walk(descending: boolean, visit: (entry: T) => boolean): void {
    if (descending) {
      for (let c = this.chunks.length - 1; c >= 0; c--) {
        const chunk = this.chunks[c] as T[];
        for (let i = chunk.length - 1; i >= 0; i--) if (!visit(chunk[i] as T)) return;
      }
      return;
    }
    for (const chunk of this.chunks) for (const entry of chunk) if (!visit(entry)) return;
  }

  /** `count` entries from position `skip` in order (or reverse order), without visiting the skipped ones. */
  slice(skip: number, count: number, descending: boolean): T[] {
    const out: T[] = [];
    if (count <= 0 || skip >= this.count) return out;
    let remaining = skip;
    const order = descending ? [...this.chunks].reverse() : this.chunks;
    for (const chunk of order) {
      if (remaining >= chunk.length) {
        remaining -= chunk.length;
        continue;
      }
      if (descending) {
        for (let i = chunk.length - 1 - remaining; i >= 0 && out.length < count; i--) out.push(chunk[i] as T);
      } else {
        for (let i = remaining; i < chunk.length && out.length < count; i++) out.push(chunk[i] as T);
      }
      remaining = 0;
      if (out.length >= count) break;
    }
    return out;
  }

  /** The chunk an entry belongs in: the first whose last entry is not below it (else the last chunk). */
  private chunkFor(entry: T): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = this.chunks[middle] as T[];
      if (this.compare(chunk[chunk.length - 1] as T, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The first position in `chunk` whose entry is not below `entry`. */
  private positionIn(chunk: readonly T[], entry: T): number {
    let low = 0;
    let high = chunk.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(chunk[middle] as T, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
