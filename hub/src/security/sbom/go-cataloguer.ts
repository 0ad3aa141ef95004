/**
 * Go modules compiled into executables: the build info the Go linker writes (`debug/buildinfo`),
 * found by its 14-byte magic `\xff Go buildinf:` while the file streams by. Go ≥ 1.18 writes the
 * toolchain version and the module info inline after the 32-byte header (flag 0x2: varint-prefixed
 * strings), which is all that is read; older binaries keep pointers into the data segment, which
 * would need the whole file: they are counted, not catalogued. Only ELF executables are scanned, and
 * at most a bounded window past the magic is held.
 */
import type { SbomPackage } from '../sbom-model';
import { type Cataloguer, skippedWarning } from './cataloguer';
import { formatPurl } from './purl';

const MAGIC = [0xff, 0x20, 0x47, 0x6f, 0x20, 0x62, 0x75, 0x69, 0x6c, 0x64, 0x69, 0x6e, 0x66, 0x3a]; // "\xff Go buildinf:"
const HEADER = 32;
const INLINE_STRINGS = 0x2;
/** Module info of a large program is tens of KiB; more than this past the magic is not build info. */
const WINDOW_CAP = 1024 * 1024;

export interface GoModule {
  path: string;
  version: string;
}

export type GoBuildInfo = { goVersion: string; main?: GoModule; deps: GoModule[] } | { unsupported: string };

function magicAt(bytes: Uint8Array, at: number): boolean {
  for (let index = 0; index < MAGIC.length; index++) if (bytes[at + index] !== MAGIC[index]) return false;
  return true;
}

/** An unsigned LEB128 varint: [value, bytes used], 'more' when cut, undefined when absurd. */
function uvarint(bytes: Uint8Array, at: number): [number, number] | 'more' | undefined {
  let value = 0;
  let shift = 0;
  for (let index = 0; index < 5; index++) {
    if (at + index >= bytes.length) return 'more';
    const byte = bytes[at + index] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, index + 1];
    shift += 7;
  }
  return undefined;
}

const decoder = new TextDecoder();

/** The build info whose magic is at `at`, 'more' when the window ends first, 'invalid' when it is not one. */
export function parseBuildInfoAt(bytes: Uint8Array, at: number): GoBuildInfo | 'more' | 'invalid' {
  if (bytes.length < at + HEADER) return 'more';
  const pointerSize = bytes[at + 14];
  const flags = bytes[at + 15] ?? 0;
  if (pointerSize !== 4 && pointerSize !== 8) return 'invalid';
  if ((flags & INLINE_STRINGS) === 0) return { unsupported: 'Go before 1.18 (build info behind pointers)' };
  const strings: string[] = [];
  let position = at + HEADER;
  for (let count = 0; count < 2; count++) {
    const length = uvarint(bytes, position);
    if (length === undefined) return 'invalid';
    if (length === 'more') return 'more';
    const [size, used] = length;
    if (size > WINDOW_CAP) return 'invalid';
    if (bytes.length < position + used + size) return 'more';
    strings.push(decoder.decode(bytes.subarray(position + used, position + used + size)));
    position += used + size;
  }
  const [goVersion = '', modinfo = ''] = strings;
  if (!goVersion.startsWith('go') && !goVersion.startsWith('devel')) return 'invalid';
  return { goVersion, ...parseModInfo(modinfo) };
}

/** `path`, `mod`, `dep` and `=>` lines, between the 16-byte sentinels the linker adds around them. */
export function parseModInfo(raw: string): { main?: GoModule; deps: GoModule[] } {
  let text = raw;
  if (text.length >= 33 && text[text.length - 17] === '\n') text = text.slice(16, -16);
  let main: GoModule | undefined;
  const deps: GoModule[] = [];
  let last: GoModule | undefined;
  for (const line of text.split('\n')) {
    const [kind, path, version] = line.split('\t');
    if ((kind === 'mod' || kind === 'dep') && path) {
      last = { path, version: version ?? '' };
      if (kind === 'mod') main = last;
      else deps.push(last);
    } else if (kind === '=>' && path && last) {
      // A replacement by another module (with a version) is what was compiled in; a local directory
      // (`../greet`, version empty or `(devel)`) keeps the required module's name and version.
      const local = path.startsWith('.') || path.startsWith('/');
      if (version && version !== '(devel)' && !local) {
        last.path = path;
        last.version = version;
      }
    }
  }
  return { ...(main ? { main } : {}), deps };
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
};

/** Where a whole magic starts in `bytes` from `from`, or -1. */
function findMagic(bytes: Uint8Array, from: number): number {
  for (let at = bytes.indexOf(0xff, from); at !== -1; at = bytes.indexOf(0xff, at + 1)) {
    if (at + MAGIC.length > bytes.length) return -1;
    if (magicAt(bytes, at)) return at;
  }
  return -1;
}

/**
 * Streams an executable looking for the build info; undefined for anything that is not a Go ELF
 * binary. Chunks are searched where they lie; only a candidate (from its magic on, up to the
 * window cap) and the few bytes that could start a magic cut by a chunk's end are copied.
 */
export async function scanGoBuildInfo(body: AsyncIterable<Uint8Array>): Promise<GoBuildInfo | undefined> {
  let head = new Uint8Array(0);
  let tail = new Uint8Array(0);
  /** Bytes from a magic on, while its build info is incomplete. */
  let candidate: Uint8Array | undefined;
  /** Tries the candidate; answers the build info, or moves on past a false or oversized one. */
  const settle = (): GoBuildInfo | undefined => {
    while (candidate) {
      const parsed = parseBuildInfoAt(candidate, 0);
      if (parsed === 'more' && candidate.length <= WINDOW_CAP) return undefined;
      if (parsed !== 'more' && parsed !== 'invalid') return parsed;
      const next = findMagic(candidate, 1);
      candidate = next === -1 ? undefined : candidate.subarray(next);
      if (!candidate) tail = new Uint8Array(0);
    }
    return undefined;
  };
  for await (const chunk of body) {
    if (head.length < 4) {
      head = concat(head, chunk.subarray(0, 4 - head.length));
      if (head.length < 4) continue;
      if (head[0] !== 0x7f || head[1] !== 0x45 || head[2] !== 0x4c || head[3] !== 0x46) return undefined;
    }
    if (candidate) {
      candidate = concat(candidate, chunk);
    } else {
      // A magic cut by the previous chunk's end, then one inside this chunk.
      const edge = concat(tail, chunk.subarray(0, MAGIC.length - 1));
      const across = findMagic(edge, 0);
      if (across !== -1 && across < tail.length) candidate = concat(tail.subarray(across), chunk);
      else {
        const inside = findMagic(chunk, 0);
        if (inside !== -1) candidate = chunk.slice(inside);
      }
      // The last bytes seen (of this chunk, or with the previous tail when the chunk is short).
      const seen = chunk.length >= MAGIC.length - 1 ? chunk : concat(tail, chunk);
      tail = seen.slice(Math.max(0, seen.length - (MAGIC.length - 1)));
    }
    const found = settle();
    if (found) return found;
  }
  return undefined;
}

/** `github.com/a/b` → namespace `github.com/a`, name `b`; a one-segment path has no namespace. */
export function goPackage(module: GoModule, location: string): SbomPackage {
  const slash = module.path.lastIndexOf('/');
  const namespace = slash === -1 ? undefined : module.path.slice(0, slash);
  const name = module.path.slice(slash + 1);
  // `(devel)` is what a main module built from a checkout says: no version a purl can carry.
  const version = module.version === '(devel)' ? undefined : module.version;
  return {
    type: 'golang',
    ...(namespace ? { namespace } : {}),
    name,
    version: module.version,
    purl: formatPurl({ type: 'golang', ...(namespace ? { namespace } : {}), name, ...(version ? { version } : {}) }),
    licenses: [],
    location,
  };
}

export const goCataloguer: Cataloguer<GoBuildInfo> = {
  name: 'go',
  selects: (_path, mode, size) => (mode & 0o111) !== 0 && size >= 1024,
  read: (body) => scanGoBuildInfo(body),
  catalogue(files) {
    const packages: SbomPackage[] = [];
    let unsupported = 0;
    for (const file of files) {
      if ('unsupported' in file.value) {
        unsupported++;
        continue;
      }
      const { goVersion, main, deps } = file.value;
      if (main) packages.push(goPackage(main, file.path));
      for (const dep of deps) packages.push(goPackage(dep, file.path));
      // The standard library compiled in, as OSV's Go database names it.
      const stdlib = /^go(\d+\.\d+(?:\.\d+)?)/.exec(goVersion)?.[1];
      if (stdlib) packages.push(goPackage({ path: 'stdlib', version: stdlib }, file.path));
    }
    return { packages, warnings: skippedWarning('Go binaries', unsupported, 'built before Go 1.18') };
  },
};
