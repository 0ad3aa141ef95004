/**
 * One image read through the hub's SBOM service (`createSbomService`, the generator entry the scans
 * use: the Engine's `docker save` stream through `generateSbom`), alone in this process so its peak
 * resident memory is the read's and nothing else's. Spawned by bench/scan.ts with
 * `BENCH_SBOM_SOCKET` (the Engine's socket), `BENCH_SBOM_IMAGE` (an image id) and `BENCH_SBOM_REF`;
 * prints one JSON line: wall time, packages, RSS before the read and the process's peak RSS.
 */
import { createStorage } from 'unstorage';
import { createDockerHost } from '../../edge-agent/src/docker';
import { createSbomService } from '../../hub/src/security/sbom-service';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../shared/logging/logger';

async function main(): Promise<void> {
  const socketPath = process.env.BENCH_SBOM_SOCKET;
  const imageId = process.env.BENCH_SBOM_IMAGE;
  if (!socketPath || !imageId) throw new Error('BENCH_SBOM_SOCKET and BENCH_SBOM_IMAGE are required');
  const host = createDockerHost({ socketPath });
  const service = createSbomService({
    storage: createStorage(),
    logger: createLogger({ level: 'error', ring: createLogRing(10), sink: silentSink }),
    now: Date.now,
  });
  // Everything loaded, nothing read yet: the growth past this point is the read's.
  const rssBefore = Math.max(process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);
  const started = performance.now();
  const sbom = await service.sbomOf({ host, imageId, imageRef: process.env.BENCH_SBOM_REF ?? imageId });
  const ms = performance.now() - started;
  // maxRSS is in KiB: the kernel's high-water mark of this process (VmHWM).
  const peakRss = process.resourceUsage().maxRSS * 1024;
  await host.close();
  process.stdout.write(`${JSON.stringify({ ms, packages: sbom.packages.length, rssBefore, peakRss })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
