/**
 * A minimal, read-only reader of a Berkeley DB hash database held in memory (the format of rpm's
 * `/var/lib/rpm/Packages` before rpm 4.16: RHEL/CentOS 7 and 8, Amazon Linux 2), enough to list
 * its key/value pairs: the hash metadata page, the bucket pages (key and value items alternate) and
 * overflow chains for the values too large for a bucket page (a header blob usually is).
 *
 * Pages are read in file order, not through the buckets, so no chain of bucket pages is followed;
 * an overflow chain is bounded by the length its item declares and by the pages of the file, and
 * each overflow page may belong to one value only. Encrypted and checksummed databases, which rpm
 * never writes, are refused. The byte order is the writing host's, told by the magic number.
 */

export class BdbFormatError extends Error {
  constructor(message: string) {
    super(`berkeley db: ${message}`);
    this.name = 'BdbFormatError';
  }
}

export interface BdbEntry {
  key: Uint8Array;
  value: Uint8Array;
}

const HASH_MAGIC = 0x061561;
const PAGE_HEADER = 26;
const P_HASH_UNSORTED = 2;
const P_OVERFLOW = 7;
const P_HASHMETA = 8;
const P_HASH = 13;
const H_KEYDATA = 1;
const H_OFFPAGE = 3;
const DBMETA_CHKSUM = 0x01;

export function* readBdbHash(bytes: Uint8Array, maxValueBytes: number): Generator<BdbEntry> {
  if (bytes.length < 512) throw new BdbFormatError(`${bytes.length} bytes, less than a metadata page`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let little = true;
  if (view.getUint32(12, true) !== HASH_MAGIC) {
    if (view.getUint32(12, false) !== HASH_MAGIC) throw new BdbFormatError('not a hash database (no magic)');
    little = false;
  }
  const u32 = (at: number) => view.getUint32(at, little);
  const u16 = (at: number) => view.getUint16(at, little);
  const pageSize = u32(20);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    throw new BdbFormatError(`page size ${pageSize}`);
  }
  if (bytes[25] !== P_HASHMETA) throw new BdbFormatError(`metadata page of type ${bytes[25]}`);
  if (bytes[24] !== 0) throw new BdbFormatError('encrypted database');
  if (((bytes[26] ?? 0) & DBMETA_CHKSUM) !== 0) throw new BdbFormatError('checksummed pages are not read');
  // last_pgno says how far the file goes; a file cut short has fewer pages, which is what counts.
  const pageCount = Math.min(Math.floor(bytes.length / pageSize), u32(32) + 1);
  const overflowSeen = new Set<number>();

  const overflow = (first: number, length: number): Uint8Array => {
    if (length > maxValueBytes || length > bytes.length) {
      throw new BdbFormatError(`a value of ${length} bytes, more than the ${maxValueBytes} read`);
    }
    const value = new Uint8Array(length);
    let filled = 0;
    let next = first;
    while (filled < length) {
      if (next < 1 || next >= pageCount) throw new BdbFormatError(`overflow page ${next} outside the file`);
      if (overflowSeen.has(next)) throw new BdbFormatError(`overflow page ${next} reached twice (a cycle)`);
      overflowSeen.add(next);
      const start = next * pageSize;
      if (bytes[start + 25] !== P_OVERFLOW) throw new BdbFormatError(`page ${next}: not an overflow page`);
      const onPage = u16(start + 22);
      if (onPage > pageSize - PAGE_HEADER || onPage > length - filled || onPage === 0) {
        throw new BdbFormatError(`overflow page ${next}: ${onPage} bytes`);
      }
      value.set(bytes.subarray(start + PAGE_HEADER, start + PAGE_HEADER + onPage), filled);
      filled += onPage;
      next = u32(start + 16);
    }
    return value;
  };

  /** Item `index` of the page at `start`: inline bytes, or the overflow chain it points to. */
  const item = (start: number, entries: number, index: number, pageNumber: number): Uint8Array | undefined => {
    const offset = u16(start + PAGE_HEADER + index * 2);
    // Items are packed from the end of the page down: an item ends where the previous one starts.
    const end = index === 0 ? pageSize : u16(start + PAGE_HEADER + (index - 1) * 2);
    if (offset < PAGE_HEADER + entries * 2 || offset >= end || end > pageSize) {
      throw new BdbFormatError(`page ${pageNumber}: item ${index} at ${offset}`);
    }
    const type = bytes[start + offset];
    if (type === H_KEYDATA) return bytes.subarray(start + offset + 1, start + end);
    if (type === H_OFFPAGE) {
      if (offset + 12 > end) throw new BdbFormatError(`page ${pageNumber}: item ${index} cut short`);
      return overflow(u32(start + offset + 4), u32(start + offset + 8));
    }
    // Duplicates (H_DUPLICATE, H_OFFDUP) are not used by rpm's Packages database.
    return undefined;
  };

  for (let pageNumber = 1; pageNumber < pageCount; pageNumber++) {
    const start = pageNumber * pageSize;
    const type = bytes[start + 25];
    if (type !== P_HASH && type !== P_HASH_UNSORTED) continue;
    const entries = u16(start + 20);
    if (PAGE_HEADER + entries * 2 > pageSize || entries % 2 !== 0) {
      throw new BdbFormatError(`page ${pageNumber}: ${entries} items`);
    }
    for (let index = 0; index < entries; index += 2) {
      const key = item(start, entries, index, pageNumber);
      const value = item(start, entries, index + 1, pageNumber);
      if (key && value) yield { key, value };
    }
  }
}

/** rpm's keys are header numbers in the writing host's order, the same as the database's magic. */
export function bdbKeyNumber(bytes: Uint8Array, key: Uint8Array): number | undefined {
  if (key.length !== 4) return undefined;
  const little = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true) === HASH_MAGIC;
  return new DataView(key.buffer, key.byteOffset, 4).getUint32(0, little);
}
