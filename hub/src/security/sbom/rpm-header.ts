/**
 * An rpm header as the rpm databases store it (lib/header.c, `headerImport`): no lead and no magic,
 * just `il` and `dl` (big-endian counts of index entries and data bytes), `il` 16-byte entries
 * (tag, type, offset into the data, count) and the data store. Every database backend (SQLite, BDB,
 * NDB) keeps one such blob per installed package. Only the tags an SBOM needs are read; each is
 * bounds-checked against the data store, and the blob's declared sizes against rpm's own limits
 * and the blob's length, before anything is allocated.
 */

export class RpmHeaderError extends Error {
  constructor(message: string) {
    super(`rpm header: ${message}`);
    this.name = 'RpmHeaderError';
  }
}

export interface RpmHeader {
  name: string;
  version: string;
  release: string;
  epoch?: number;
  arch?: string;
  license?: string;
  /** `SOURCERPM`: `openssl-3.0.7-16.el9_2.src.rpm`. */
  sourceRpm?: string;
  vendor?: string;
}

const TAG = {
  name: 1000,
  version: 1001,
  release: 1002,
  epoch: 1003,
  vendor: 1011,
  license: 1014,
  arch: 1022,
  sourceRpm: 1044,
} as const;

const TYPE_INT32 = 4;
const TYPE_STRING = 6;
const TYPE_I18NSTRING = 9;
const ENTRY_SIZE = 16;
/** rpm's own limits (lib/header_internal.h, hdrchkTags and hdrchkData): beyond them rpm refuses the header too. */
const MAX_ENTRIES = 0xffff;
const MAX_DATA = 0x0fffffff;
/** A name, version or licence longer than this is not one. */
const MAX_STRING = 64 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: false });

/** The string at `offset` of the data store, up to its NUL, which must lie within the store. */
function stringAt(data: Uint8Array, offset: number, tag: number): string {
  const end = data.indexOf(0, offset);
  if (end < 0 || end - offset > MAX_STRING) throw new RpmHeaderError(`tag ${tag}: string not terminated`);
  return decoder.decode(data.subarray(offset, end));
}

export function parseRpmHeader(blob: Uint8Array): RpmHeader {
  if (blob.length < 8) throw new RpmHeaderError(`${blob.length} bytes, shorter than its counts`);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const il = view.getUint32(0);
  const dl = view.getUint32(4);
  if (il === 0 || il > MAX_ENTRIES) throw new RpmHeaderError(`${il} index entries`);
  if (dl > MAX_DATA) throw new RpmHeaderError(`${dl} data bytes`);
  const dataStart = 8 + il * ENTRY_SIZE;
  // Equal in a database blob; a few bytes of padding after the store are tolerated, a shortfall is not.
  if (dataStart + dl > blob.length) {
    throw new RpmHeaderError(`${il} entries and ${dl} data bytes do not fit in ${blob.length} bytes`);
  }
  const data = blob.subarray(dataStart, dataStart + dl);
  const wanted = new Set<number>(Object.values(TAG));
  const strings = new Map<number, string>();
  let epoch: number | undefined;
  for (let index = 0; index < il; index++) {
    const at = 8 + index * ENTRY_SIZE;
    const tag = view.getUint32(at);
    if (!wanted.has(tag)) continue;
    const type = view.getUint32(at + 4);
    const offset = view.getUint32(at + 8);
    const count = view.getUint32(at + 12);
    if (offset >= dl || count === 0) throw new RpmHeaderError(`tag ${tag}: offset ${offset} outside ${dl} data bytes`);
    if (tag === TAG.epoch) {
      if (type !== TYPE_INT32 || offset % 4 !== 0 || offset + 4 > dl) {
        throw new RpmHeaderError(`tag ${tag}: not an aligned INT32 within the data`);
      }
      epoch = new DataView(data.buffer, data.byteOffset + offset, 4).getUint32(0);
      continue;
    }
    // LICENSE and VENDOR are STRING; some packagers write I18NSTRING, whose first string is the default.
    if (type !== TYPE_STRING && type !== TYPE_I18NSTRING) throw new RpmHeaderError(`tag ${tag}: type ${type}`);
    strings.set(tag, stringAt(data, offset, tag));
  }
  const name = strings.get(TAG.name);
  const version = strings.get(TAG.version);
  const release = strings.get(TAG.release);
  if (!name || !version || !release) throw new RpmHeaderError('no NAME, VERSION or RELEASE');
  const header: RpmHeader = { name, version, release };
  if (epoch !== undefined) header.epoch = epoch;
  for (const key of ['arch', 'license', 'sourceRpm', 'vendor'] as const) {
    const value = strings.get(TAG[key]);
    if (value) header[key] = value;
  }
  return header;
}

/** `openssl-3.0.7-16.el9_2.src.rpm` → name and `version-release`; undefined when it is not that shape. */
export function parseSourceRpm(fileName: string): { name: string; version: string } | undefined {
  const match = /^(.+)-([^-]+)-([^-]+)\.(?:no)?src\.rpm$/.exec(fileName);
  if (!match) return undefined;
  return { name: match[1] ?? '', version: `${match[2]}-${match[3]}` };
}
