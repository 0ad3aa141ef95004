/**
 * A minimal, read-only reader of the SQLite file format (https://www.sqlite.org/fileformat.html),
 * enough to list the rows of one table of an rpm database (`rpmdb.sqlite`) held in memory: the
 * header, the schema table on page 1, table b-tree pages (interior and leaf), overflow chains,
 * varints and the record format. No index, no WAL (a `-wal` file beside the database is not read:
 * rpm checkpoints it when it closes the database), no writes.
 *
 * The file is untrusted: every page number is checked against the file, every offset against its
 * page, each page of the tree is visited at most once (a cycle is an error, not a loop), overflow
 * chains are bounded by the payload they claim, and a payload is allocated only once its size is
 * known to fit in the file.
 */

export class SqliteFormatError extends Error {
  constructor(message: string) {
    super(`sqlite: ${message}`);
    this.name = 'SqliteFormatError';
  }
}

export type SqliteValue = null | number | bigint | string | Uint8Array;

export interface SqliteRow {
  rowid: bigint;
  values: SqliteValue[];
}

const MAGIC = 'SQLite format 3\u0000';
const HEADER_SIZE = 100;
const LEAF_TABLE = 13;
const INTERIOR_TABLE = 5;
/** Columns in a record: the rpm tables have two, sqlite_master five; SQLite's own limit is 32767. */
const MAX_COLUMNS = 2000;

const decoder = new TextDecoder('utf-8', { fatal: false });

export class SqliteFile {
  readonly pageSize: number;
  /** Usable bytes of a page: the page size less the reserved bytes at its end. */
  readonly usable: number;
  readonly pageCount: number;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    if (bytes.length < HEADER_SIZE || decoder.decode(bytes.subarray(0, 16)) !== MAGIC) {
      throw new SqliteFormatError('not an SQLite 3 database (no header)');
    }
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const raw = this.view.getUint16(16);
    this.pageSize = raw === 1 ? 65536 : raw;
    if (this.pageSize < 512 || (this.pageSize & (this.pageSize - 1)) !== 0) {
      throw new SqliteFormatError(`page size ${raw}`);
    }
    const reserved = bytes[20] ?? 0;
    this.usable = this.pageSize - reserved;
    if (this.usable < 480) throw new SqliteFormatError(`${reserved} reserved bytes per page`);
    // The header's page count is valid only when written by SQLite ≥ 3.7.0 in the same change;
    // a file cut short has fewer pages than it says, which is what the bounds checks go by.
    this.pageCount = Math.floor(bytes.length / this.pageSize);
    if (this.pageCount < 1) throw new SqliteFormatError(`${bytes.length} bytes, less than one page`);
  }

  private page(number: number, what: string): number {
    if (!Number.isInteger(number) || number < 1 || number > this.pageCount) {
      throw new SqliteFormatError(`${what}: page ${number} outside the file's ${this.pageCount} pages`);
    }
    return (number - 1) * this.pageSize;
  }

  /** The rows of the table whose b-tree starts at `rootPage`, in rowid order. */
  *rows(rootPage: number, maxRowBytes: number): Generator<SqliteRow> {
    const visited = new Set<number>();
    // Shared by every row: in a sound file an overflow page belongs to one row, so the whole read
    // touches each page at most once, however many cells point at the same chain.
    const overflowSeen = new Set<number>();
    const stack: number[] = [rootPage];
    while (stack.length > 0) {
      const number = stack.pop() as number;
      const start = this.page(number, 'table b-tree');
      if (visited.has(number)) throw new SqliteFormatError(`page ${number} reached twice (a cycle)`);
      visited.add(number);
      // Page 1 holds the file header before its b-tree header.
      const header = start + (number === 1 ? HEADER_SIZE : 0);
      const type = this.bytes[header];
      const cells = this.view.getUint16(header + 3);
      const interior = type === INTERIOR_TABLE;
      if (!interior && type !== LEAF_TABLE)
        throw new SqliteFormatError(`page ${number}: not a table b-tree page (${type})`);
      const pointers = header + (interior ? 12 : 8);
      if (pointers + cells * 2 > start + this.usable) throw new SqliteFormatError(`page ${number}: ${cells} cells`);
      const cellAt = (index: number) => {
        const offset = this.view.getUint16(pointers + index * 2);
        if (offset < pointers - start + cells * 2 || offset + (interior ? 4 : 2) > this.usable) {
          throw new SqliteFormatError(`page ${number}: cell ${index} at ${offset}`);
        }
        return start + offset;
      };
      if (interior) {
        // Pushed right to left, so that the leftmost child is read first.
        stack.push(this.view.getUint32(header + 8));
        for (let index = cells - 1; index >= 0; index--) stack.push(this.view.getUint32(cellAt(index)));
        continue;
      }
      for (let index = 0; index < cells; index++)
        yield this.leafCell(cellAt(index), start, number, maxRowBytes, overflowSeen);
    }
  }

  private leafCell(
    at: number,
    pageStart: number,
    number: number,
    maxRowBytes: number,
    overflowSeen: Set<number>,
  ): SqliteRow {
    const pageEnd = pageStart + this.usable;
    const where = `page ${number}: a cell`;
    const [size, sizeLength] = readVarint(this.bytes, at, pageEnd, where);
    const [rowid, rowidLength] = readVarint(this.bytes, at + sizeLength, pageEnd, where);
    if (size > BigInt(Math.min(maxRowBytes, this.bytes.length))) {
      throw new SqliteFormatError(`page ${number}: a row of ${size} bytes, more than the ${maxRowBytes} read`);
    }
    const payloadSize = Number(size);
    const payloadAt = at + sizeLength + rowidLength;
    const local = this.localSize(payloadSize);
    if (payloadAt + local + (local < payloadSize ? 4 : 0) > pageEnd) {
      throw new SqliteFormatError(`page ${number}: a cell runs past the page`);
    }
    let payload: Uint8Array;
    if (local === payloadSize) {
      payload = this.bytes.subarray(payloadAt, payloadAt + local);
    } else {
      payload = new Uint8Array(payloadSize);
      payload.set(this.bytes.subarray(payloadAt, payloadAt + local));
      this.readOverflow(this.view.getUint32(payloadAt + local), payload, local, overflowSeen);
    }
    return { rowid: BigInt.asIntN(64, rowid), values: this.record(payload, number) };
  }

  /** The bytes of a table leaf payload kept on the page itself (the file format's U, X, M and K). */
  private localSize(payloadSize: number): number {
    const maxLocal = this.usable - 35;
    if (payloadSize <= maxLocal) return payloadSize;
    const minLocal = Math.floor(((this.usable - 12) * 32) / 255) - 23;
    const local = minLocal + ((payloadSize - minLocal) % (this.usable - 4));
    return local <= maxLocal ? local : minLocal;
  }

  /** Fills `payload` from `filled` on with the chain starting at `first`: at most as many pages as the payload needs. */
  private readOverflow(first: number, payload: Uint8Array, filled: number, seen: Set<number>): void {
    let next = first;
    let offset = filled;
    const perPage = this.usable - 4;
    while (offset < payload.length) {
      const start = this.page(next, 'overflow chain');
      if (seen.has(next)) throw new SqliteFormatError(`overflow page ${next} reached twice (a cycle)`);
      seen.add(next);
      const take = Math.min(perPage, payload.length - offset);
      payload.set(this.bytes.subarray(start + 4, start + 4 + take), offset);
      offset += take;
      next = this.view.getUint32(start);
    }
  }

  /** The record format: a header of serial types, then the values in that order. */
  private record(payload: Uint8Array, number: number): SqliteValue[] {
    const where = `page ${number}: a record`;
    const [headerSize, headerLength] = readVarint(payload, 0, payload.length, where);
    if (headerSize > BigInt(payload.length) || Number(headerSize) < headerLength) {
      throw new SqliteFormatError(`${where} header of ${headerSize} bytes`);
    }
    const types: bigint[] = [];
    for (let at = headerLength; at < Number(headerSize); ) {
      if (types.length >= MAX_COLUMNS) throw new SqliteFormatError(`${where} of more than ${MAX_COLUMNS} columns`);
      const [type, length] = readVarint(payload, at, Number(headerSize), where);
      types.push(type);
      at += length;
    }
    const values: SqliteValue[] = [];
    let at = Number(headerSize);
    for (const type of types) {
      const size = serialSize(type);
      if (at + size > payload.length) throw new SqliteFormatError(`${where} runs past its payload`);
      values.push(decodeValue(type, payload.subarray(at, at + size)));
      at += size;
    }
    return values;
  }
}

/** A 1–9 byte big-endian varint within [at, end): its value and length. */
function readVarint(bytes: Uint8Array, at: number, end: number, where: string): [bigint, number] {
  let value = 0n;
  for (let index = 0; index < 8; index++) {
    if (at + index >= end) throw new SqliteFormatError(`${where}: a varint runs past its bounds`);
    const byte = bytes[at + index] ?? 0;
    value = (value << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, index + 1];
  }
  if (at + 8 >= end) throw new SqliteFormatError(`${where}: a varint runs past its bounds`);
  return [(value << 8n) | BigInt(bytes[at + 8] ?? 0), 9];
}

const INT_SIZES = [0, 1, 2, 3, 4, 6, 8, 8, 0, 0];

function serialSize(type: bigint): number {
  if (type < 10n) return INT_SIZES[Number(type)] ?? 0;
  if (type < 12n) throw new SqliteFormatError(`reserved serial type ${type}`);
  // Larger than any file this reader accepts: the caller's bound check refuses it.
  return type > 0x7fffffffn ? Number.MAX_SAFE_INTEGER : Number((type - 12n) / 2n);
}

function decodeValue(type: bigint, bytes: Uint8Array): SqliteValue {
  if (type === 0n) return null;
  if (type === 8n) return 0;
  if (type === 9n) return 1;
  if (type === 7n) return new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0);
  if (type < 7n) {
    let value = 0n;
    for (const byte of bytes) value = (value << 8n) | BigInt(byte);
    const signed = BigInt.asIntN(bytes.length * 8, value);
    return signed >= BigInt(Number.MIN_SAFE_INTEGER) && signed <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(signed)
      : signed;
  }
  return type % 2n === 0n ? bytes : decoder.decode(bytes);
}

/** The root page of table `name`, from the schema table (`sqlite_master`) on page 1. */
export function tableRootPage(file: SqliteFile, name: string): number {
  for (const row of file.rows(1, 1024 * 1024)) {
    const [type, tableName, , rootPage] = row.values;
    if (type === 'table' && tableName === name) {
      if (typeof rootPage !== 'number' || rootPage < 1)
        throw new SqliteFormatError(`table ${name}: root page ${rootPage}`);
      return rootPage;
    }
  }
  throw new SqliteFormatError(`no table ${name}`);
}
