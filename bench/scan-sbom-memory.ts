import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestDockerd } from '../test/support/docker/start-dockerd';
import { buildScanImage } from './support/scan-images';

export interface ImageRead {
  label: string;
  /** The image's size as the Engine reports it. */
  size: number;
  ms: number;
  packages: number;
  rssBefore: number;
  peakRss: number;
}

/** Reads one image in a fresh process (bench/support/sbom-image-read.ts) and returns what it printed. */
function readInChild(root: string, socketPath: string, imageId: string, imageRef: string) {
  return new Promise<Omit<ImageRead, 'label' | 'size'>>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', join(root, 'bench/support/sbom-image-read.ts')],
      {
        cwd: root,
        env: { ...process.env, BENCH_SBOM_SOCKET: socketPath, BENCH_SBOM_IMAGE: imageId, BENCH_SBOM_REF: imageRef },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`sbom read of ${imageRef} exited ${code}: ${stderr.trim()}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
    });
  });
}

/**
 * The SBOM of images holding the same `packages` dpkg packages and different amounts of random
 * filler, each built with `docker build` on the real dockerd and read through the Engine's
 * `docker save` stream by the hub's SBOM service, each in a process of its own. The RSS growth
 * should not follow the size: the layers are streamed, never held.
 */
export async function measureSbomMemory(
  root: string,
  dockerd: TestDockerd,
  packages: number,
  sizesMiB: readonly number[],
  log: (message: string) => void,
): Promise<ImageRead[]> {
  const reads: ImageRead[] = [];
  for (const fillerMiB of sizesMiB) {
    const reference = `bench-scan/sbom-${fillerMiB}:1`;
    log(`building ${reference}: ${packages} packages, ${fillerMiB} MiB of random filler`);
    const image = await buildScanImage(dockerd, reference, { packages, fillerMiB });
    const read = await readInChild(root, dockerd.socketPath, image.id, reference);
    if (read.packages !== packages)
      throw new Error(`scan: the SBOM of ${reference} lists ${read.packages} packages, not ${packages}`);
    reads.push({ label: `${fillerMiB} MiB filler`, size: image.size, ...read });
    // Gone before the next build: the disk holds one large image at a time.
    await dockerd.docker.getImage(reference).remove({ force: true });
  }
  return reads;
}
