import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { buildTar, inChunks, type TarSpec, tarHeader } from '../../../../test/support/sbom/tar-builder';
import { TruncatedStreamError } from './byte-reader';
import { LayerFormatError, layerTarChunks } from './layer-stream';
import { readTar, TarFormatError } from './tar-reader';

const text = new TextDecoder();

async function collect(source: AsyncIterable<Uint8Array>, read = true) {
  const out: Array<{ path: string; type: string; size: number; mode: number; linkPath?: string; body?: string }> = [];
  for await (const entry of readTar(source)) {
    const parts: Uint8Array[] = [];
    if (read) for await (const chunk of entry.body()) parts.push(chunk.slice());
    out.push({
      path: entry.path,
      type: entry.type,
      size: entry.size,
      mode: entry.mode,
      ...(entry.linkPath !== undefined ? { linkPath: entry.linkPath } : {}),
      ...(read && entry.type === 'file' ? { body: parts.map((part) => text.decode(part)).join('') } : {}),
    });
  }
  return out;
}

const LONG_DIR = `usr/lib/${'very-long-directory-name/'.repeat(6)}`;

const ENTRIES: TarSpec[] = [
  { path: 'etc', type: 'dir' },
  { path: 'etc/os-release', content: 'ID=debian\n' },
  { path: './usr/bin/app', content: 'x'.repeat(1300), mode: 0o755 },
  { path: 'usr/bin/link', type: 'symlink', target: 'app' },
  { path: 'usr/bin/hard', type: 'hardlink', target: 'usr/bin/app' },
  { path: `${LONG_DIR}pax/package.json`, content: '{"name":"pax"}', longNames: 'pax' },
  { path: `${LONG_DIR}gnu/package.json`, content: '{"name":"gnu"}', longNames: 'gnu' },
  { path: `${LONG_DIR.slice(0, 140)}ustar/package.json`, content: '{"name":"ustar"}', longNames: 'ustar' },
  { path: 'empty', content: '' },
];

describe('readTar', () => {
  it('reads ustar, pax and GNU long names, links and bodies whatever the chunk sizes', async () => {
    const bytes = buildTar(ENTRIES);
    for (const sizes of [[1], [511, 2], [100000], [7, 512, 1000, 1]]) {
      const entries = await collect(inChunks(bytes, sizes));
      expect(entries.map((entry) => entry.path)).toEqual([
        'etc',
        'etc/os-release',
        'usr/bin/app',
        'usr/bin/link',
        'usr/bin/hard',
        `${LONG_DIR}pax/package.json`,
        `${LONG_DIR}gnu/package.json`,
        `${LONG_DIR.slice(0, 140)}ustar/package.json`,
        'empty',
      ]);
      expect(entries[2]).toEqual({
        path: 'usr/bin/app',
        type: 'file',
        size: 1300,
        mode: 0o755,
        body: 'x'.repeat(1300),
      });
      expect(entries[3]).toMatchObject({ type: 'symlink', linkPath: 'app', size: 0 });
      expect(entries[4]).toMatchObject({ type: 'hardlink', linkPath: 'usr/bin/app' });
      expect(entries[5]?.body).toBe('{"name":"pax"}');
      expect(entries[6]?.body).toBe('{"name":"gnu"}');
      expect(entries[7]?.body).toBe('{"name":"ustar"}');
    }
  });

  it('skips the bodies nobody reads', async () => {
    const entries = await collect(inChunks(buildTar(ENTRIES), [333]), false);
    expect(entries).toHaveLength(ENTRIES.length);
  });

  it('reads a GNU base-256 size', async () => {
    const header = tarHeader({ name: 'big', flag: '0', size: 0 });
    // 8 GiB + 3 in base-256: the high bit of the first byte, then big-endian.
    const field = new Uint8Array(12);
    field[0] = 0x80;
    const size = 2 ** 33 + 3;
    let value = size;
    for (let index = 11; index > 0; index--) {
      field[index] = value % 256;
      value = Math.floor(value / 256);
    }
    header.set(field, 124);
    header.fill(0x20, 148, 156);
    const sum = header.reduce((total, byte) => total + byte, 0);
    header.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
    const iterator = readTar(inChunks(header, [512]))[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.size).toBe(size);
    await iterator.return?.(undefined);
  });

  it('refuses a bad checksum, a truncated body and a truncated header with their own errors', async () => {
    const bytes = buildTar(ENTRIES);
    const corrupted = bytes.slice();
    corrupted[512 * 1 + 10] = 0x41; // In the second header's name.
    await expect(collect(inChunks(corrupted))).rejects.toThrow(TarFormatError);
    await expect(collect(inChunks(bytes.slice(0, 512 * 5 + 100)))).rejects.toThrow(TruncatedStreamError);
    await expect(collect(inChunks(bytes.slice(0, 512 + 100)))).rejects.toThrow(/truncated/);
  });

  it('ends at the first end block, and refuses a stream cut at an entry boundary', async () => {
    const bytes = buildTar(ENTRIES.slice(0, 2));
    expect(await collect(inChunks(bytes.slice(0, bytes.length - 512)))).toHaveLength(2);
    await expect(collect(inChunks(bytes.slice(0, bytes.length - 1024)))).rejects.toThrow(/no end-of-archive block/);
  });
});

describe('layerTarChunks', () => {
  it('inflates gzip layers, passes plain tar through, names zstd and refuses bad gzip', async () => {
    const tar = buildTar(ENTRIES);
    const gz = gzipSync(tar);
    expect(await collect(layerTarChunks(inChunks(gz, [100, 3])))).toHaveLength(ENTRIES.length);
    expect(await collect(layerTarChunks(inChunks(tar, [1000])))).toHaveLength(ENTRIES.length);
    await expect(collect(layerTarChunks(inChunks(gz.slice(0, gz.length / 2))))).rejects.toThrow(LayerFormatError);
    const bad = gz.slice();
    bad.fill(0xff, 20, 60);
    await expect(collect(layerTarChunks(inChunks(bad)))).rejects.toThrow(LayerFormatError);
    await expect(collect(layerTarChunks(inChunks(new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0, 0]))))).rejects.toThrow(
      /zstd/,
    );
  });
});
