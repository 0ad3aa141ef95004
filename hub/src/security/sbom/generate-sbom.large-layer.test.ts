/**
 * A 2 GiB layer streamed through the generator with bounded memory: the archive is generated
 * lazily (a 2 GiB executable ELF file of zeros, which the Go cataloguer scans to its end, then an
 * os-release), never held whole; resident memory may grow by a bounded window, not by the layer.
 * And a gzip bomb: 1 GiB of zeros compressed a thousand to one (gzip members of 16 MiB each).
 */
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { tarHeader } from '../../../../test/support/sbom/tar-builder';
import { generateSbom } from './generate-sbom';

const MiB = 1024 * 1024;
const BIG = 2 * 1024 * MiB;
const encoder = new TextEncoder();
const OS_RELEASE = encoder.encode('ID=alpine\nVERSION_ID=3.19.1\n');
const pad = (size: number) => new Uint8Array((512 - (size % 512)) % 512);

function* innerLayer(): Generator<Uint8Array> {
  yield tarHeader({ name: 'data/big.bin', flag: '0', size: BIG, mode: 0o755 });
  const zeros = new Uint8Array(MiB);
  const first = new Uint8Array(MiB);
  first.set([0x7f, 0x45, 0x4c, 0x46]);
  yield first;
  for (let sent = MiB; sent < BIG; sent += MiB) yield zeros;
  yield tarHeader({ name: 'etc/os-release', flag: '0', size: OS_RELEASE.length });
  yield OS_RELEASE;
  yield pad(OS_RELEASE.length);
  yield new Uint8Array(1024);
}

const INNER_SIZE = 512 + BIG + 512 + OS_RELEASE.length + pad(OS_RELEASE.length).length + 1024;

async function* archive(onChunk: () => void): AsyncGenerator<Uint8Array> {
  yield tarHeader({ name: 'aaaa/layer.tar', flag: '0', size: INNER_SIZE });
  for (const chunk of innerLayer()) {
    onChunk();
    yield chunk;
  }
  yield pad(INNER_SIZE);
  const manifest = encoder.encode(JSON.stringify([{ Config: 'c.json', Layers: ['aaaa/layer.tar'] }]));
  yield tarHeader({ name: 'manifest.json', flag: '0', size: manifest.length });
  yield manifest;
  yield pad(manifest.length);
  yield new Uint8Array(1024);
}

describe('generateSbom on a 2 GiB layer', () => {
  it('streams it with bounded memory', async () => {
    const before = process.memoryUsage.rss();
    let peak = before;
    let chunks = 0;
    const started = performance.now();
    const sbom = await generateSbom(
      archive(() => {
        if (++chunks % 64 === 0) peak = Math.max(peak, process.memoryUsage.rss());
      }),
      { imageId: 'sha256:c', imageRef: 'big:1' },
    );
    const seconds = (performance.now() - started) / 1000;
    const growthMiB = (peak - before) / MiB;
    console.log(`2 GiB layer: ${seconds.toFixed(1)} s, peak RSS growth ${growthMiB.toFixed(0)} MiB`);
    expect(sbom.distro).toEqual({ id: 'alpine', versionId: '3.19.1' });
    expect(sbom.packages).toEqual([]);
    expect(chunks).toBeGreaterThan(2048);
    // The layer is 2048 MiB; what is held at once is a chunk or two and the Go scanner's window.
    expect(growthMiB).toBeLessThan(160);
  }, 240_000);
});

describe('generateSbom on a gzip layer that inflates a thousandfold', () => {
  it('inflates 1 GiB from 1 MiB with bounded memory', async () => {
    const GiB = 1024 * MiB;
    const member = gzipSync(new Uint8Array(16 * MiB));
    const members = GiB / (16 * MiB);
    // gzip members concatenated are one gzip stream: the tar header, the body, the tar's end.
    const head = gzipSync(tarHeader({ name: 'data/zeros', flag: '0', size: GiB }));
    const tail = gzipSync(new Uint8Array(1024));
    const layerSize = head.length + members * member.length + tail.length;
    async function* bomb(onChunk: () => void): AsyncGenerator<Uint8Array> {
      yield tarHeader({ name: 'bbbb/layer.tar', flag: '0', size: layerSize });
      yield head;
      for (let index = 0; index < members; index++) {
        onChunk();
        yield member;
      }
      yield tail;
      yield pad(layerSize);
      const manifest = encoder.encode(JSON.stringify([{ Config: 'c.json', Layers: ['bbbb/layer.tar'] }]));
      yield tarHeader({ name: 'manifest.json', flag: '0', size: manifest.length });
      yield manifest;
      yield pad(manifest.length);
      yield new Uint8Array(1024);
    }
    const before = process.memoryUsage.rss();
    let peak = before;
    const started = performance.now();
    const sbom = await generateSbom(
      bomb(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }),
      { imageId: 'sha256:c', imageRef: 'bomb:1' },
    );
    const growthMiB = (peak - before) / MiB;
    console.log(
      `gzip bomb (${(layerSize / MiB).toFixed(1)} MiB → 1 GiB): ${((performance.now() - started) / 1000).toFixed(1)} s, peak RSS growth ${growthMiB.toFixed(0)} MiB`,
    );
    expect(sbom.packages).toEqual([]);
    // One push of a 16 KiB slice inflates at most ~16 MiB: a few of those in flight (and in the
    // garbage collector's lag: about 100 MiB measured), never the layer's 1 GiB.
    expect(growthMiB).toBeLessThan(256);
  }, 240_000);
});
