/**
 * One image read through the hub's SBOM service (`createSbomService`, the generator entry the scans
 * use: the Engine's `docker save` stream through `generateSbom`), alone in this process so its peak
 * resident memory is the read's and nothing else's. Spawned by bench/scan.ts with
 * `BENCH_SBOM_SOCKET` (the Engine's socket), `BENCH_SBOM_IMAGE` (an image id) and `BENCH_SBOM_REF`;
 * prints one JSON line: wall time, packages, RSS before the read and the peak RSS during it.
 *
 * The peak is the kernel's high-water mark (VmHWM), reset just before the read (`5` written to
 * /proc/self/clear_refs, Linux 4.0+): tsx's start-up, which peaks higher than a small read, is not
 * counted. Where the reset is refused, the process's whole-life maxRSS is reported instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createStorage } from 'unstorage';
import { createDockerHost } from '../../edge-agent/src/docker';
import { createSbomService } from '../../hub/src/security/sbom-service';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../shared/logging/logger';

/** Resets this process's VmHWM to its current RSS; false where the kernel refuses. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** A `/proc/self/status` field in bytes (`VmHWM:   123456 kB`), 0 when absent. */
function statusKiB(field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

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
  (globalThis as { gc?: () => void }).gc?.();
  const reset = resetPeak();
  const rssBefore = process.memoryUsage.rss();
  const started = performance.now();
  const sbom = await service.sbomOf({ host, imageId, imageRef: process.env.BENCH_SBOM_REF ?? imageId });
  const ms = performance.now() - started;
  const peakRss = (reset && statusKiB('VmHWM')) || process.resourceUsage().maxRSS * 1024;
  await host.close();
  process.stdout.write(`${JSON.stringify({ ms, packages: sbom.packages.length, rssBefore, peakRss })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
