import { loadavg } from 'node:os';
import { strToU8 } from 'fflate';
import { createStorage } from 'unstorage';
import { importOsvExport } from '../hub/src/security/osv/osv-import';
import { OsvStore } from '../hub/src/security/osv/osv-store';
import { scanSbom } from '../hub/src/security/osv/scan-sbom';
import type { ImageSbom, SbomPackage } from '../hub/src/security/sbom-model';
import { createLogRing } from '../shared/logging/log-ring';
import { createLogger, silentSink } from '../shared/logging/logger';
import { startDockerd } from '../test/support/docker/start-dockerd';
import { measureScanAll } from './scan-all-fleet';
import { measureSbomMemory } from './scan-sbom-memory';
import {
  type Align,
  type BenchContext,
  type Benchmark,
  formatBytes,
  formatCount,
  markdownTable,
  positiveIntegerEnv,
} from './support/benchmark';
import { importScanBase } from './support/scan-images';

/**
 * Vulnerability matching (docs/security-scanning.md): a generated OSV database of 200,000 entries
 * (JSON Lines, five ecosystems, 20,000 packages each with ten advisories on average) imported into
 * storage, then an SBOM of 500 packages matched against it, cold (the buckets read from storage)
 * and warm. Then, on a real dockerd (issue 14): the SBOM of a large image against a small one with
 * the same packages (wall time, peak RSS), and scan-all over containers sharing a few images.
 */

const ECOSYSTEMS = [
  {
    ecosystem: 'Debian:12',
    type: 'deb' as const,
    range: 'ECOSYSTEM',
    version: (n: number) => `1.${n % 50}.${n % 7}-${(n % 3) + 1}`,
  },
  {
    ecosystem: 'Alpine:v3.19',
    type: 'apk' as const,
    range: 'ECOSYSTEM',
    version: (n: number) => `1.${n % 50}.${n % 7}-r${n % 9}`,
  },
  { ecosystem: 'npm', type: 'npm' as const, range: 'SEMVER', version: (n: number) => `1.${n % 50}.${n % 7}` },
  { ecosystem: 'PyPI', type: 'pypi' as const, range: 'ECOSYSTEM', version: (n: number) => `1.${n % 50}.${n % 7}` },
  { ecosystem: 'Go', type: 'golang' as const, range: 'SEMVER', version: (n: number) => `1.${n % 50}.${n % 7}` },
];
const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

function database(entries: number, packagesPerEcosystem: number): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < entries; i++) {
    const eco = ECOSYSTEMS[i % ECOSYSTEMS.length] ?? ECOSYSTEMS[0];
    if (!eco) break;
    const pkg = `pkg-${(i * 7919) % packagesPerEcosystem}`;
    lines.push(
      JSON.stringify({
        id: `BENCH-${i}`,
        modified: '2026-01-01T00:00:00Z',
        aliases: [`CVE-2099-${i}`],
        summary: `generated advisory ${i} for ${pkg}`,
        severity: [{ type: 'CVSS_V3', score: VECTOR }],
        affected: [
          {
            package: { ecosystem: eco.ecosystem, name: pkg },
            ranges: [{ type: eco.range, events: [{ introduced: '0' }, { fixed: eco.version(i + 1) }] }],
          },
        ],
        references: [{ type: 'ADVISORY', url: `https://example.test/${i}` }],
      }),
    );
  }
  return strToU8(lines.join('\n'));
}

function sbom(packages: number, packagesPerEcosystem: number, distro: 'debian' | 'alpine'): ImageSbom {
  const list: SbomPackage[] = [];
  for (let i = 0; i < packages; i++) {
    const eco = ECOSYSTEMS[i % ECOSYSTEMS.length] ?? ECOSYSTEMS[0];
    if (!eco) break;
    const name = `pkg-${(i * 104729) % packagesPerEcosystem}`;
    const version = eco.version(i);
    list.push({
      type: eco.type,
      name,
      version,
      purl: `pkg:${eco.type}/${name}@${version}`,
      licenses: [],
      location: '/bench',
    });
  }
  return {
    imageId: 'sha256:bench',
    imageRef: 'bench:1',
    distro: distro === 'debian' ? { id: 'debian', versionId: '12' } : { id: 'alpine', versionId: '3.19.0' },
    packages: list,
    generatedAt: new Date().toISOString(),
  };
}

export async function measureScan(entries: number, packages: number) {
  const logger = createLogger({ level: 'error', ring: createLogRing(10), sink: silentSink });
  const perEcosystem = Math.max(1, Math.round(entries / ECOSYSTEMS.length / 10));
  const bytes = database(entries, perEcosystem);
  const storage = createStorage();
  const store = new OsvStore(storage, logger);
  let started = performance.now();
  const meta = await importOsvExport(store, bytes, 'bench', Date.now());
  const importMs = performance.now() - started;
  const rssAfterImport = process.memoryUsage().rss;
  let stored = 0;
  for (const key of await storage.getKeys('security:osv')) stored += JSON.stringify(await storage.getItem(key)).length;
  // A fresh reader: the cold scan reads its buckets from storage.
  const reader = new OsvStore(storage, logger);
  const image = sbom(packages, perEcosystem, 'debian');
  started = performance.now();
  const cold = await scanSbom(image, reader);
  const coldMs = performance.now() - started;
  started = performance.now();
  const warm = await scanSbom(image, reader);
  const warmMs = performance.now() - started;
  if (warm.length !== cold.length) throw new Error('scan: the warm scan found other findings');
  return {
    inputBytes: bytes.length,
    importMs,
    indexed: meta.counts.indexed,
    buckets: meta.bucketCount,
    stored,
    coldMs,
    warmMs,
    findings: cold.length,
    rssAfterImport,
  };
}

export const scan: Benchmark = {
  name: 'scan',
  async run(ctx: BenchContext) {
    // The machine is shared: its load beside the figures says how much they may be off.
    const loadAtStart = loadavg()[0] ?? 0;
    const entries = positiveIntegerEnv('BENCH_OSV_ENTRIES', 200_000);
    const packages = positiveIntegerEnv('BENCH_SBOM_PACKAGES', 500);
    ctx.log(`importing ${entries} generated OSV entries, then matching ${packages} packages`);
    const m = await measureScan(entries, packages);
    const align: Align[] = ['left', 'right'];
    const rows = [
      ['OSV entries (JSON Lines)', `${formatCount(entries)} (${formatBytes(m.inputBytes)})`],
      ['import: validate, index, store', `${Math.round(m.importMs)} ms`],
      ['stored: buckets, bytes', `${m.buckets}, ${formatBytes(m.stored)}`],
      ['RSS after the import', formatBytes(m.rssAfterImport)],
      [`match ${packages} packages, cold (buckets read)`, `${Math.round(m.coldMs)} ms`],
      [`match ${packages} packages, warm`, `${Math.round(m.warmMs)} ms`],
      ['findings', formatCount(m.findings)],
    ];
    const matching = `${markdownTable(['measure', 'value'], rows, align)}\n\nIn process, memory storage; the SBOM is generated, not read from an image (docs/security-scanning.md).`;
    const onDockerd = await measureOnDockerd(ctx);
    const load = `Load average (1 min) at the start and at the end of this run: ${loadAtStart.toFixed(1)} and ${(loadavg()[0] ?? 0).toFixed(1)}, on ${ctx.machine.cores} cores.`;
    return { title: 'Vulnerability matching', markdown: `${matching}\n\n${onDockerd}\n\n${load}` };
  },
};

/** The SBOM of large and small images, and scan-all over a fleet, on one real dockerd stopped afterwards. */
async function measureOnDockerd(ctx: BenchContext): Promise<string> {
  const sbomPackages = positiveIntegerEnv('BENCH_SCAN_PACKAGES', 500);
  const largeMiB = positiveIntegerEnv('BENCH_SCAN_IMAGE_MIB', 200);
  const smallMiB = positiveIntegerEnv('BENCH_SCAN_SMALL_IMAGE_MIB', 20);
  const containers = positiveIntegerEnv('BENCH_SCAN_CONTAINERS', 100);
  const images = positiveIntegerEnv('BENCH_SCAN_IMAGES', 20);
  const align: Align[] = ['left', 'right'];
  const dockerd = await startDockerd();
  try {
    await importScanBase(dockerd);
    const reads = await measureSbomMemory(ctx.root, dockerd, sbomPackages, [smallMiB, largeMiB], ctx.log);
    const fleet = await measureScanAll(dockerd, { containers, images, packages: 20 }, ctx.log);
    if (fleet.exports !== images || fleet.scanned !== containers) {
      throw new Error(
        `scan: scan-all exported ${fleet.exports} images for ${images} and scanned ${fleet.scanned} of ${containers} containers`,
      );
    }
    const readRows = reads.map((read) => [
      `${formatBytes(read.size)} (${read.label})`,
      `${Math.round(read.ms)} ms`,
      formatBytes(read.peakRss),
      formatBytes(read.peakRss - read.rssBefore),
      formatCount(read.packages),
    ]);
    const fleetRows = [
      ['containers, images', `${formatCount(fleet.containers)}, ${formatCount(fleet.images)}`],
      ['scan-all: 202 to security-scan-cycle-complete', `${Math.round(fleet.ms)} ms`],
      ['image exports (`GET /images/{id}/get`)', formatCount(fleet.exports)],
      ['scanned, failed', `${formatCount(fleet.scanned)}, ${formatCount(fleet.failed)}`],
    ];
    return [
      '### SBOM of a large image',
      '',
      markdownTable(['image', 'wall time', 'peak RSS', 'RSS growth', 'packages'], readRows, [
        'left',
        'right',
        'right',
        'right',
        'right',
      ]),
      '',
      `Images built with \`docker build\` on a real dockerd (test/support/docker): the busybox base, a dpkg status of ${sbomPackages} packages and random (incompressible) filler under /opt/filler, in one layer. Each is read through the Engine's \`docker save\` stream by the hub's SBOM service (\`createSbomService\`, as a scan does) in a process of its own (bench/support/sbom-image-read.ts): peak RSS is that process's high-water mark (VmHWM) during the read (reset through /proc/self/clear_refs just before it, after a GC), the growth is past its RSS at that moment. \`BENCH_SCAN_PACKAGES\`, \`BENCH_SCAN_IMAGE_MIB\` (${largeMiB}) and \`BENCH_SCAN_SMALL_IMAGE_MIB\` (${smallMiB}) set them.`,
      '',
      '### scan-all over a fleet',
      '',
      markdownTable(['measure', 'value'], fleetRows, align),
      '',
      `${formatCount(containers)} busybox containers (\`sleep\`) from ${formatCount(images)} images (20 dpkg packages each) on the same dockerd; the hub as its own process (\`node --import tsx hub/src/entry/node.ts\`, memory store, the fixture OSV database) reaches the daemon through a pass-through that counts Engine calls (bench/support/engine-proxy.ts). \`BENCH_SCAN_CONTAINERS\` and \`BENCH_SCAN_IMAGES\` set the fleet.`,
    ].join('\n');
  } finally {
    await dockerd.stop();
  }
}
