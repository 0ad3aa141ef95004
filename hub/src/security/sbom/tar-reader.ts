/**
 * A streaming tar reader (POSIX ustar, pax extended headers, GNU long names and base-256 sizes)
 * over chunks of bytes, in the portable core. Entries come one at a time; a body is streamed
 * (`entry.body()`) and what the consumer does not read is skipped, so nothing larger than a header
 * or a pax record is ever held here. Malformed input throws TarFormatError naming the offset.
 */
import { ByteReader, type ByteSource, TruncatedStreamError } from './byte-reader';

export class TarFormatError extends Error {
  constructor(message: string, offset: number) {
    super(`invalid tar at byte ${offset}: ${message}`);
    this.name = 'TarFormatError';
  }
}

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

export interface TarEntry {
  /** Without a leading `./` or `/`; directories without their trailing slash. */
  path: string;
  type: TarEntryType;
  size: number;
  mode: number;
  /** The target of a symlink or hard link. */
  linkPath?: string;
  /** The body, streamed; readable once, before the next entry is asked for. */
  body(): AsyncIterable<Uint8Array>;
}

const BLOCK = 512;
/** A pax or GNU long-name record larger than this is not a name: refuse it rather than buffer it. */
const MAX_META_BYTES = 1024 * 1024;

const decoder = new TextDecoder();

function cString(block: Uint8Array, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return decoder.decode(end === -1 ? field : field.subarray(0, end));
}

/** Octal, space or NUL terminated; or GNU base-256 when the high bit of the first byte is set. */
function numeric(block: Uint8Array, start: number, length: number, offset: number): number {
  const field = block.subarray(start, start + length);
  if ((field[0] ?? 0) & 0x80) {
    let value = (field[0] ?? 0) & 0x7f;
    for (let index = 1; index < field.length; index++) value = value * 256 + (field[index] ?? 0);
    if (!Number.isSafeInteger(value)) throw new TarFormatError('a base-256 number beyond 2^53', offset);
    return value;
  }
  const text = decoder
    .decode(field)
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`a malformed octal field ${JSON.stringify(text)}`, offset);
  return Number.parseInt(text, 8);
}

function checksumMatches(block: Uint8Array, offset: number): boolean {
  const stored = numeric(block, 148, 8, offset);
  let unsigned = 0;
  let signed = 0;
  for (let index = 0; index < BLOCK; index++) {
    const byte = index >= 148 && index < 156 ? 0x20 : (block[index] ?? 0);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

function isZeroBlock(block: Uint8Array): boolean {
  for (const byte of block) if (byte !== 0) return false;
  return true;
}

/** `./usr/bin/` → `usr/bin`; keeps the layer's own relative spelling otherwise. */
export function normalizeTarPath(path: string): string {
  let out = path;
  while (out.startsWith('./')) out = out.slice(2);
  out = out.replace(/^\/+/, '').replace(/\/+$/, '');
  return out === '.' ? '' : out;
}

/** pax records: `<length> <key>=<value>\n`, the length counting the whole record. */
export function parsePaxRecords(bytes: Uint8Array, offset: number): Map<string, string> {
  const records = new Map<string, string>();
  let position = 0;
  while (position < bytes.length) {
    if (bytes[position] === 0) break; // Padding some writers leave after the last record.
    const space = bytes.indexOf(0x20, position);
    if (space === -1) throw new TarFormatError('a pax record without a length', offset);
    const length = Number.parseInt(decoder.decode(bytes.subarray(position, space)), 10);
    if (!Number.isInteger(length) || length <= space - position || position + length > bytes.length) {
      throw new TarFormatError('a pax record with a bad length', offset);
    }
    const record = decoder.decode(bytes.subarray(space + 1, position + length - 1));
    const equals = record.indexOf('=');
    if (equals <= 0) throw new TarFormatError('a pax record without a key', offset);
    records.set(record.slice(0, equals), record.slice(equals + 1));
    position += length;
  }
  return records;
}

function entryType(flag: string): TarEntryType | 'pax' | 'pax-global' | 'gnu-long-name' | 'gnu-long-link' {
  switch (flag) {
    case '0':
    case '':
    case '7':
      return 'file';
    case '1':
      return 'hardlink';
    case '2':
      return 'symlink';
    case '5':
      return 'directory';
    case 'x':
      return 'pax';
    case 'g':
      return 'pax-global';
    case 'L':
      return 'gnu-long-name';
    case 'K':
      return 'gnu-long-link';
    default:
      return 'other';
  }
}

const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

/** The entries of a tar stream, in order. The source is released when iteration ends or fails. */
export async function* readTar(source: ByteSource): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source);
  try {
    let pax = new Map<string, string>();
    const globalPax = new Map<string, string>();
    let longName: string | undefined;
    let longLink: string | undefined;
    for (;;) {
      const offset = reader.position;
      const block = await reader.readExact(BLOCK, 'a tar header');
      // Docker, Go's archive/tar and GNU tar all end an archive with zero blocks: without them, the
      // stream was cut at an entry boundary, and a layer read so would silently lose its files.
      if (block === undefined) throw new TruncatedStreamError('a tar archive (no end-of-archive block)');
      if (isZeroBlock(block)) return; // The end; what follows is padding to the record size.
      if (!checksumMatches(block, offset)) throw new TarFormatError('a header checksum mismatch', offset);
      const kind = entryType(String.fromCharCode(block[156] ?? 0).replace('\0', ''));
      let size = numeric(block, 124, 12, offset);
      if (kind === 'pax' || kind === 'pax-global' || kind === 'gnu-long-name' || kind === 'gnu-long-link') {
        if (size > MAX_META_BYTES) throw new TarFormatError(`a ${kind} record of ${size} bytes`, offset);
        const bytes = size === 0 ? new Uint8Array(0) : await reader.readExact(size, 'a tar metadata record');
        if (bytes === undefined) throw new TarFormatError('a metadata record cut short', offset);
        await reader.skip(padding(size), 'tar padding');
        if (kind === 'pax') for (const [key, value] of parsePaxRecords(bytes, offset)) pax.set(key, value);
        else if (kind === 'pax-global')
          for (const [key, value] of parsePaxRecords(bytes, offset)) globalPax.set(key, value);
        else if (kind === 'gnu-long-name') longName = cString(bytes, 0, bytes.length);
        else longLink = cString(bytes, 0, bytes.length);
        continue;
      }
      const magic = decoder.decode(block.subarray(257, 263));
      const prefix = magic === 'ustar\0' ? cString(block, 345, 155) : '';
      const headerName = cString(block, 0, 100);
      const name =
        pax.get('path') ?? longName ?? globalPax.get('path') ?? (prefix ? `${prefix}/${headerName}` : headerName);
      const link = pax.get('linkpath') ?? longLink ?? cString(block, 157, 100);
      const paxSize = pax.get('size') ?? globalPax.get('size');
      if (paxSize !== undefined) {
        if (!/^\d+$/.test(paxSize) || !Number.isSafeInteger(Number(paxSize))) {
          throw new TarFormatError('a bad pax size', offset);
        }
        size = Number(paxSize);
      }
      pax = new Map();
      longName = undefined;
      longLink = undefined;
      // Links and directories carry no body whatever their size field says (hard links may repeat it).
      const bodySize = kind === 'file' || kind === 'other' ? size : 0;
      let consumed = false;
      const entry: TarEntry = {
        path: normalizeTarPath(name),
        type: kind,
        size: bodySize,
        mode: numeric(block, 100, 8, offset) & 0o7777,
        ...(kind === 'symlink' || kind === 'hardlink' ? { linkPath: link } : {}),
        body: () => {
          if (consumed) throw new Error(`the body of ${name} was read already`);
          consumed = true;
          return reader.stream(bodySize, `the body of ${name}`);
        },
      };
      const before = reader.position;
      yield entry;
      const left = bodySize - (reader.position - before);
      if (left > 0) await reader.skip(left, `the body of ${name}`);
      await reader.skip(padding(bodySize), 'tar padding');
    }
  } finally {
    await reader.close();
  }
}
