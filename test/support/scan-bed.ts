/**
 * The scan test bed (docs/security-scanning.md): a dockerd, a registry the images are pushed to with
 * the docker CLI, and a Debian-like image in two versions: `1.0.0` holds a vulnerable openssl
 * (libssl3 from source openssl), `1.1.0` fixes it and brings a vulnerable libepoch, both per the
 * fixture OSV database. Only 1.0.0 stays on the host, where a container runs it: the candidate comes
 * from the registry, as an update's would.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startDockerd, type TestDockerd } from './docker/start-dockerd';
import { importBusyboxImage, runContainer } from './docker/test-images';
import { startRegistry, type TestRegistry } from './registry/start-registry';
import { stanza } from './sbom/image-fixture';

export const OSV_FIXTURE = join(import.meta.dirname, 'fixtures', 'osv', 'advisories.json');
const OS_RELEASE =
  'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n';

/** One installed package's dpkg status stanza. */
const deb = (name: string, version: string, source?: string) =>
  stanza({
    Package: name,
    Status: 'install ok installed',
    Architecture: 'amd64',
    ...(source ? { Source: source } : {}),
    Version: version,
    Description: `${name} for the scan test`,
  });

export interface ScanBed {
  dockerd: TestDockerd;
  registry: TestRegistry;
  /** `registry/scan/app:<tag>`. */
  ref(tag: string): string;
  /** The container running 1.0.0. */
  containerId: string;
  /** The hub variables of a scanner reading the fixture database. */
  scannerEnv: Record<string, string>;
  stop(): Promise<void>;
}

export async function startScanBed(): Promise<ScanBed> {
  const registry = await startRegistry({ variant: 'plain' });
  const dockerd = await startDockerd();
  const ref = (tag: string) => `${registry.host}/scan/app:${tag}`;
  const cli = async (args: string[]) => {
    const result = await dockerd.cli(args);
    if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
  };
  /** An image of the busybox base with this dpkg status, built and pushed as `tag`. */
  const publish = async (tag: string, status: string) => {
    const context = mkdtempSync(join(tmpdir(), 'scan-context-'));
    try {
      const files: Record<string, string> = { 'etc/os-release': OS_RELEASE, 'var/lib/dpkg/status': status };
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(context, 'root', path)), { recursive: true });
        writeFileSync(join(context, 'root', path), content);
      }
      writeFileSync(join(context, 'Dockerfile'), 'FROM scan/base:1\nCOPY root/ /\n');
      await cli(['build', '--network', 'none', '-t', ref(tag), context]);
      await cli(['push', ref(tag)]);
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  };
  await importBusyboxImage(dockerd.docker, { repository: 'scan/base', tag: '1', cmd: ['sleep', '3600'] });
  await publish('1.0.0', deb('libssl3', '3.0.11-1~deb12u1', 'openssl'));
  await publish('1.1.0', `${deb('libssl3', '3.0.11-1~deb12u2', 'openssl')}\n${deb('libepoch', '1:1.0-1')}`);
  await cli(['rmi', ref('1.1.0')]);
  const containerId = await runContainer(dockerd.docker, { name: 'scanned', image: ref('1.0.0') });
  return {
    dockerd,
    registry,
    ref,
    containerId,
    scannerEnv: {
      DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'true',
      DD_SECURITY_SCANNER: 'osv',
      DD_SECURITY_OSV_FILE: OSV_FIXTURE,
      DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1',
    },
    async stop() {
      await dockerd.stop();
      await registry.stop();
    },
  };
}
