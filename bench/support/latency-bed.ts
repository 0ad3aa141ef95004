/**
 * The bed of the benchmarks that time registry checks end to end (cli, watch-cycle, watch-http):
 * a dockerd, a plain registry, and a proxy in front of it adding the same latency to every request,
 * so each run compares with the floor measured through the same proxy.
 */
import { startDockerd, type TestDockerd } from '../../test/support/docker/start-dockerd';
import { type LatencyProxy, startLatencyProxy } from '../../test/support/latency-proxy';
import { startRegistry, type TestRegistry } from '../../test/support/registry/start-registry';
import { mapLimit, publishBuild } from './docker-fleet';

/** Added to each registry request by the proxy. */
export const REGISTRY_LATENCY_MS = 20;

export interface LatencyBed {
  dockerd: TestDockerd;
  registry: TestRegistry;
  proxy: LatencyProxy;
}

/** Starts the bed; what started is pushed on `cleanups` (the caller runs them, even after a failure here). */
export async function startLatencyBed(cleanups: (() => Promise<unknown>)[]): Promise<LatencyBed> {
  const dockerd = await startDockerd();
  cleanups.push(() => dockerd.stop());
  const registry = await startRegistry({ variant: 'plain' });
  cleanups.push(() => registry.stop());
  const proxy = await startLatencyProxy(registry.url, REGISTRY_LATENCY_MS);
  cleanups.push(() => proxy.close());
  return { dockerd, registry, proxy };
}

/**
 * `count` repositories `<prefix><n>`, each one build pushed through the proxy under `tagsOf(n)`
 * (four at a time); answers the references the containers run: `:1.0.0` and `:latest` of each.
 */
export async function publishRepositories(
  bed: LatencyBed,
  count: number,
  prefix: string,
  tagsOf: (n: number) => readonly string[] = () => ['1.0.0', 'latest'],
): Promise<string[]> {
  const host = bed.proxy.host;
  const pushed = await mapLimit(
    Array.from({ length: count }, (_, n) => n),
    4,
    async (n) => {
      await publishBuild(bed.dockerd, host, `${prefix}${n}`, 'a', tagsOf(n));
      return [`${host}/${prefix}${n}:1.0.0`, `${host}/${prefix}${n}:latest`];
    },
  );
  return pushed.flat();
}
