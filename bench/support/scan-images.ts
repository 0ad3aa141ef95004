import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestDockerd } from '../../test/support/docker/start-dockerd';
import { importBusyboxImage } from '../../test/support/docker/test-images';
import { stanza } from '../../test/support/sbom/image-fixture';

const OS_RELEASE = 'ID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n';
const MiB = 1024 * 1024;
/** Filler files of at most this size: the build context is written file by file, never held whole. */
const FILLER_FILE_BYTES = 8 * MiB;
const BASE = 'bench-scan/base:1';

/** A dpkg status of `count` installed packages, each from its own source package. */
export function dpkgStatus(count: number, seed: string): string {
  const stanzas: string[] = [];
  for (let n = 0; n < count; n++) {
    stanzas.push(
      stanza({
        Package: `pkg-${n}`,
        Status: 'install ok installed',
        Architecture: 'amd64',
        Source: `src-${n % 97}`,
        Version: `1.${n % 50}.${n % 7}-${(n % 3) + 1}`,
        Description: `package ${n} of ${seed}`,
      }),
    );
  }
  return stanzas.join('\n');
}

async function cli(dockerd: TestDockerd, args: string[]): Promise<void> {
  const result = await dockerd.cli(args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr.trim()}`);
}

/** The busybox base every scan image is built on (imported once per daemon). */
export async function importScanBase(dockerd: TestDockerd): Promise<void> {
  const [repository, tag] = BASE.split(':') as [string, string];
  await importBusyboxImage(dockerd.docker, { repository, tag, cmd: ['sleep', '3600'] });
}

/**
 * `docker build` of a Debian-like image on the busybox base: an os-release, a dpkg status of
 * `packages` packages and `fillerMiB` of random (incompressible) bytes in files under /opt/filler.
 * Returns the image id and its size as the Engine reports it.
 */
export async function buildScanImage(
  dockerd: TestDockerd,
  reference: string,
  options: { packages: number; fillerMiB: number },
): Promise<{ id: string; size: number }> {
  const context = mkdtempSync(join(tmpdir(), 'bench-scan-context-'));
  try {
    const write = (path: string, content: string | Uint8Array) => {
      mkdirSync(dirname(join(context, 'root', path)), { recursive: true });
      writeFileSync(join(context, 'root', path), content);
    };
    write('etc/os-release', OS_RELEASE);
    write('var/lib/dpkg/status', dpkgStatus(options.packages, reference));
    // Written as made: one filler file in memory at a time.
    for (let left = options.fillerMiB * MiB, n = 0; left > 0; left -= FILLER_FILE_BYTES, n++) {
      write(`opt/filler/${String(n).padStart(4, '0')}.bin`, randomBytes(Math.min(left, FILLER_FILE_BYTES)));
    }
    writeFileSync(join(context, 'Dockerfile'), `FROM ${BASE}\nCOPY root/ /\n`);
    await cli(dockerd, ['build', '--network', 'none', '-q', '-t', reference, context]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  const image = await dockerd.docker.getImage(reference).inspect();
  return { id: image.Id, size: image.Size };
}
