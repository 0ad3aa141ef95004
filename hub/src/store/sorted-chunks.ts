import { compareKeys, type ContainerSortKey as SortKey } from '../../../shared/containers/container-query';

/** One run of entries in order: keys and ids side by side, entry `i` being `(keys[i], ids[i])`. */
interface Chunk {
  keys: SortKey[];
  ids: string[];
}

/**
 * Ids sorted by a key, then by id (a total order), kept in chunks of at most `CHUNK` entries:
 * insert and delete cost a binary search and a splice inside one chunk, so keeping 200,000 entries
 * sorted under a steady stream of changes never moves the whole array (a flat array would move
 * 100,000 entries per change on average). Reading in order from an offset walks the chunks' sizes
 * first, then only the entries it returns.
 *
 * Keys and ids are held in two arrays per chunk rather than as an object per entry: at 200,000
 * containers and four sort orders that was 800,000 objects of 40 bytes, and a boxed number for each
 * date key, for the garbage collector to trace (issue 30: the heap of a 10,000-agent fleet).
 */
const CHUNK = 512;

export class SortedChunks {
  private chunks: Chunk[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Replaces the contents: one sort, for a bulk load. */
  reset(entries: { key: SortKey; id: string }[]): void {
    entries.sort((a, b) => compareKeys(a.key, a.id, b.key, b.id));
    this.chunks = [];
    for (let start = 0; start < entries.length; start += CHUNK) {
      const run = entries.slice(start, start + CHUNK);
      this.chunks.push({ keys: run.map((entry) => entry.key), ids: run.map((entry) => entry.id) });
    }
    this.count = entries.length;
  }

  insert(key: SortKey, id: string): void {
    if (this.chunks.length === 0) {
      this.chunks.push({ keys: [key], ids: [id] });
      this.count = 1;
      return;
    }
    const at = this.chunkFor(key, id);
    const chunk = this.chunks[at] as Chunk;
    const position = positionIn(chunk, key, id);
    chunk.keys.splice(position, 0, key);
    chunk.ids.splice(position, 0, id);
    this.count += 1;
    if (chunk.ids.length > CHUNK * 2)
      this.chunks.splice(
        at,
        1,
        { keys: chunk.keys.slice(0, CHUNK), ids: chunk.ids.slice(0, CHUNK) },
        { keys: chunk.keys.slice(CHUNK), ids: chunk.ids.slice(CHUNK) },
      );
  }

  /** Removes the entry `(key, id)`; false when there is none. */
  delete(key: SortKey, id: string): boolean {
    if (this.chunks.length === 0) return false;
    const at = this.chunkFor(key, id);
    const chunk = this.chunks[at] as Chunk;
    const position = positionIn(chunk, key, id);
    if (position >= chunk.ids.length || chunk.ids[position] !== id || chunk.keys[position] !== key) return false;
    chunk.keys.splice(position, 1);
    chunk.ids.splice(position, 1);
    this.count -= 1;
    if (chunk.ids.length === 0) this.chunks.splice(at, 1);
    return true;
  }

  /** Ids in order (or reverse order), for as long as `visit` returns true. */
  walk(descending: boolean, visit: (id: string) => boolean): void {
    if (descending) {
      for (let c = this.chunks.length - 1; c >= 0; c--) {
        const { ids } = this.chunks[c] as Chunk;
        for (let i = ids.length - 1; i >= 0; i--) if (!visit(ids[i] as string)) return;
      }
      return;
    }
    for (const { ids } of this.chunks) for (const id of ids) if (!visit(id)) return;
  }

  /** `count` ids from position `skip` in order (or reverse order), without visiting the skipped ones. */
  slice(skip: number, count: number, descending: boolean): string[] {
    const out: string[] = [];
    if (count <= 0 || skip >= this.count) return out;
    let remaining = skip;
    const order = descending ? [...this.chunks].reverse() : this.chunks;
    for (const { ids } of order) {
      if (remaining >= ids.length) {
        remaining -= ids.length;
        continue;
      }
      if (descending) {
        for (let i = ids.length - 1 - remaining; i >= 0 && out.length < count; i--) out.push(ids[i] as string);
      } else {
        for (let i = remaining; i < ids.length && out.length < count; i++) out.push(ids[i] as string);
      }
      remaining = 0;
      if (out.length >= count) break;
    }
    return out;
  }

  /** The chunk an entry belongs in: the first whose last entry is not below it (else the last chunk). */
  private chunkFor(key: SortKey, id: string): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const { keys, ids } = this.chunks[middle] as Chunk;
      const last = ids.length - 1;
      if (compareKeys(keys[last] as SortKey, ids[last] as string, key, id) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** The first position in `chunk` whose entry is not below `(key, id)`. */
function positionIn({ keys, ids }: Chunk, key: SortKey, id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareKeys(keys[middle] as SortKey, ids[middle] as string, key, id) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
