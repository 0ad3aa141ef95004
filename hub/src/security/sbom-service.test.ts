import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import type { DockerHost } from '../../../shared/docker/docker-host';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { classicArchive, layerTar } from '../../../test/support/sbom/archive-builder';
import { ALPINE_FILES } from '../../../test/support/sbom/image-fixture';
import { inChunks } from '../../../test/support/sbom/tar-builder';
import { createSbomService, SbomUnavailableError } from './sbom-service';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const archive = classicArchive([layerTar(ALPINE_FILES)]);

/** A host that serves one archive for any image id (or a cut one), counting the exports and pausing each. */
function exportingHost(options: { cut?: boolean } = {}) {
  const exports: string[] = [];
  const host = {
    endpoint: 'test://host',
    async *exportImage(imageId: string) {
      exports.push(imageId);
      await new Promise((resolve) => setTimeout(resolve, 20));
      yield* inChunks(options.cut ? archive.bytes.slice(0, 3000) : archive.bytes, [4096]);
    },
  } as unknown as DockerHost;
  return { host, exports };
}

const id = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

describe('SbomService', () => {
  it('reads an image once: concurrent requests share the read, later ones and a new service find it in storage', async () => {
    const storage = createStorage();
    const { host, exports } = exportingHost();
    const service = createSbomService({ storage, logger, now: () => 0 });
    const request = { host, imageId: id(1), imageRef: 'alpine-like:1' };
    const [a, b, c] = await Promise.all([service.sbomOf(request), service.sbomOf(request), service.sbomOf(request)]);
    expect(exports).toEqual([id(1)]);
    expect(a).toBe(b);
    expect(c.packages.map((pkg) => pkg.name)).toEqual(['musl', 'busybox', 'ssl_client']);
    await service.sbomOf(request);
    const restarted = createSbomService({ storage, logger, now: () => 0 });
    expect((await restarted.sbomOf(request)).packages).toHaveLength(3);
    expect(exports).toEqual([id(1)]);
    expect(service.reads + restarted.reads).toBe(1);
  });

  it('keeps at most maxKept SBOMs, the least recently generated dropped first', async () => {
    const storage = createStorage();
    const { host, exports } = exportingHost();
    const service = createSbomService({ storage, logger, now: () => 0, maxKept: 2 });
    for (const n of [1, 2, 3]) await service.sbomOf({ host, imageId: id(n), imageRef: 'x' });
    expect((await storage.getKeys('sbom')).sort()).toEqual(
      ['sbom:v1:index', `sbom:v1:${id(2).slice(7)}`, `sbom:v1:${id(3).slice(7)}`].sort(),
    );
    await service.sbomOf({ host, imageId: id(1), imageRef: 'x' });
    expect(exports).toEqual([id(1), id(2), id(3), id(1)]);
  });

  it('reads at most concurrentReads images at once, the others in turn', async () => {
    const { host, exports } = exportingHost();
    const service = createSbomService({ storage: createStorage(), logger, now: () => 0, concurrentReads: 2 });
    const all = Promise.all([1, 2, 3, 4].map((n) => service.sbomOf({ host, imageId: id(n), imageRef: 'x' })));
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The host pauses 20 ms before its first chunk: two exports started, two wait.
    expect(exports).toEqual([id(1), id(2)]);
    expect(await all).toHaveLength(4);
    expect(exports).toHaveLength(4);
  });

  it('never reads more than concurrentReads at once: a newcomer cannot take a freed slot before its waiter resumes', async () => {
    const service = createSbomService({ storage: createStorage(), logger, now: () => 0, concurrentReads: 2 });
    const reads: Promise<unknown>[] = [];
    const arrive = () => {
      const n = reads.length;
      reads.push(service.sbomOf({ host, imageId: `sha256:${n.toString(16).padStart(64, '0')}`, imageRef: 'x' }));
    };
    let inFlight = 0;
    let most = 0;
    let ended = 0;
    const host = {
      endpoint: 'test://host',
      async *exportImage() {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          await new Promise((resolve) => setTimeout(resolve, 1));
          yield* inChunks(archive.bytes, [4096]);
        } finally {
          inFlight--;
          // A newcomer arrives in the same turn as this read's release, 0 to 39 microtasks after
          // its end: some land between the release and the resumption of the read waiting its turn.
          const delay = ended++ % 40;
          if (reads.length < 80) {
            let chain = Promise.resolve();
            for (let tick = 0; tick < delay; tick++) chain = chain.then(() => undefined);
            void chain.then(arrive);
          }
        }
      },
    } as unknown as DockerHost;
    for (let n = 0; n < 4; n++) arrive();
    while (reads.length < 80) await Promise.all(reads);
    await Promise.all(reads);
    expect(service.reads).toBe(80);
    expect(most).toBe(2);
  });

  it('keeps no failed scan: the next request reads again; a host without exports is refused without a read', async () => {
    const storage = createStorage();
    const cut = exportingHost({ cut: true });
    const service = createSbomService({ storage, logger, now: () => 0 });
    const request = { host: cut.host, imageId: id(4), imageRef: 'x' };
    await expect(service.sbomOf(request)).rejects.toThrow(/truncated/);
    await expect(service.sbomOf(request)).rejects.toThrow(/truncated/);
    expect(cut.exports).toHaveLength(2);
    const plain = { endpoint: 'edge://agent' } as DockerHost;
    await expect(service.sbomOf({ host: plain, imageId: id(5), imageRef: 'x' })).rejects.toThrow(SbomUnavailableError);
  });
});
