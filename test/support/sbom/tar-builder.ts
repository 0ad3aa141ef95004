/**
 * Tar archives for the SBOM tests, written the three ways real writers name long paths: ustar
 * (prefix + name), pax extended headers (what Docker and BuildKit write) and GNU `././@LongLink`
 * records (GNU tar's default). Independent of the reader under test: its own header layout.
 */
const BLOCK = 512;
const encoder = new TextEncoder();

export interface TarSpec {
  path: string;
  type?: 'file' | 'dir' | 'symlink' | 'hardlink';
  mode?: number;
  content?: Uint8Array | string;
  /** Symlink or hard-link target. */
  target?: string;
  /** How a path over 100 bytes is written; ustar splits it at a slash into prefix and name. */
  longNames?: 'pax' | 'gnu' | 'ustar';
}

const TYPE_FLAGS = { file: '0', hardlink: '1', symlink: '2', dir: '5' } as const;

function writeString(header: Uint8Array, text: string, offset: number, length: number): void {
  header.set(encoder.encode(text).subarray(0, length), offset);
}

function writeOctal(header: Uint8Array, value: number, offset: number, length: number): void {
  writeString(header, `${value.toString(8).padStart(length - 1, '0')}\0`, offset, length);
}

export function tarHeader(fields: {
  name: string;
  flag: string;
  size: number;
  mode?: number;
  link?: string;
  prefix?: string;
  gnuMagic?: boolean;
}): Uint8Array {
  const header = new Uint8Array(BLOCK);
  writeString(header, fields.name, 0, 100);
  writeOctal(header, fields.mode ?? 0o644, 100, 8);
  writeOctal(header, 0, 108, 8);
  writeOctal(header, 0, 116, 8);
  writeOctal(header, fields.size, 124, 12);
  writeOctal(header, 1704067200, 136, 12);
  writeString(header, fields.flag, 156, 1);
  writeString(header, fields.link ?? '', 157, 100);
  writeString(header, fields.gnuMagic ? 'ustar  \0' : 'ustar\u000000', 257, 8);
  if (fields.prefix) writeString(header, fields.prefix, 345, 155);
  header.fill(0x20, 148, 156);
  const sum = header.reduce((total, byte) => total + byte, 0);
  writeString(header, `${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return header;
}

const pad = (size: number) => new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);

function paxRecords(records: Record<string, string>): Uint8Array {
  let text = '';
  for (const [key, value] of Object.entries(records)) {
    const body = ` ${key}=${value}\n`;
    let length = encoder.encode(body).length + 1;
    while (String(length).length + encoder.encode(body).length !== length) length++;
    text += `${length}${body}`;
  }
  return encoder.encode(text);
}

/** The blocks of one entry (metadata records first when its names need them). */
export function tarEntryBlocks(spec: TarSpec): Uint8Array[] {
  const type = spec.type ?? 'file';
  const content = typeof spec.content === 'string' ? encoder.encode(spec.content) : (spec.content ?? new Uint8Array(0));
  const size = type === 'file' ? content.length : 0;
  const name = type === 'dir' ? `${spec.path}/` : spec.path;
  const blocks: Uint8Array[] = [];
  let headerName = name;
  let prefix: string | undefined;
  let link = spec.target;
  const long = encoder.encode(name).length > 100 || encoder.encode(spec.target ?? '').length > 100;
  if (long) {
    const style = spec.longNames ?? 'pax';
    if (style === 'pax') {
      const records: Record<string, string> = { path: name };
      if (spec.target) records['linkpath'] = spec.target;
      const body = paxRecords(records);
      blocks.push(tarHeader({ name: 'PaxHeader/x', flag: 'x', size: body.length }), body, pad(body.length));
      headerName = name.slice(0, 99);
      link = spec.target?.slice(0, 99);
    } else if (style === 'gnu') {
      const body = encoder.encode(`${name}\0`);
      blocks.push(
        tarHeader({ name: '././@LongLink', flag: 'L', size: body.length, gnuMagic: true }),
        body,
        pad(body.length),
      );
      if (spec.target && spec.target.length > 100) {
        const target = encoder.encode(`${spec.target}\0`);
        blocks.push(
          tarHeader({ name: '././@LongLink', flag: 'K', size: target.length, gnuMagic: true }),
          target,
          pad(target.length),
        );
        link = spec.target.slice(0, 99);
      }
      headerName = name.slice(0, 99);
    } else {
      const cut = name.lastIndexOf('/', name.length - 2);
      prefix = name.slice(0, cut);
      headerName = name.slice(cut + 1);
    }
  }
  blocks.push(
    tarHeader({
      name: headerName,
      flag: TYPE_FLAGS[type],
      size,
      mode: spec.mode ?? (type === 'dir' ? 0o755 : 0o644),
      ...(link !== undefined ? { link } : {}),
      ...(prefix !== undefined ? { prefix } : {}),
    }),
  );
  if (size > 0) blocks.push(content, pad(size));
  return blocks;
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function buildTar(entries: TarSpec[]): Uint8Array {
  return concatBytes([...entries.flatMap(tarEntryBlocks), new Uint8Array(2 * BLOCK)]);
}

/** The bytes as chunks of the given sizes (cycled): readers must not depend on where chunks end. */
export async function* inChunks(bytes: Uint8Array, sizes: number[] = [7, 512, 1000, 1]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let index = 0;
  while (offset < bytes.length) {
    const size = Math.max(1, sizes[index++ % sizes.length] ?? 1);
    yield bytes.slice(offset, offset + size);
    offset += size;
  }
}
