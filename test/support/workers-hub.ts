import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare, type MiniflareOptions, type Response as MiniflareResponse, type RequestInit } from 'miniflare';
import { changedInput, writeBuildManifest } from '../../scripts/build-manifest.mjs';
import { buildWorkersBundleWithInputs, ROOT } from '../../scripts/build-workers.mjs';

/** The same date as wrangler.toml, so the tests run what `wrangler dev` runs. */
export const COMPATIBILITY_DATE = '2026-04-01';
/** The origin of requests sent with `fetch` (Miniflare's dispatchFetch): any host reaches the Worker. */
export const WORKERS_ORIGIN = 'http://hub.test';

export interface WorkersHubOptions {
  /** Worker vars and secrets (`[vars]`, `wrangler secret put`): `DD_*` strings, or TOML numbers and booleans. */
  vars?: Record<string, unknown>;
  /**
   * Where the Durable Object's storage lives: a directory the caller owns, so a later hub on it
   * finds the same state (a restart of workerd). Without it, a private directory removed at dispose.
   */
  persistDir?: string;
  /** A real HTTP listener on 127.0.0.1 and a free port, in `url`: for browsers, `ws` and Node's fetch. */
  listen?: boolean;
  /** Another module than the hub's bundle (a subclass of the hub object, a probe). */
  scriptPath?: string;
  /** The Durable Object class bound as HUB; `HubDurableObject` unless scriptPath says otherwise. */
  className?: string;
  /** Edge gateway objects in front of the hub (DD_EDGE_GATEWAY_SHARDS, and the EDGE_GATEWAY binding); none when absent. */
  edgeGateways?: number;
  /** workerd's --verbose: it reports an uncaught exception of a request only then. */
  verbose?: boolean;
  /** Copies workerd's output to this process's as well (debugging). */
  echo?: boolean;
  /** Anything else Miniflare takes (outboundService for a test CA, …). */
  miniflare?: Partial<MiniflareOptions>;
}

export interface WorkersHub {
  mf: Miniflare;
  /** The loopback listener's origin (`http://127.0.0.1:PORT`); always there, bound as asked with `listen`. */
  url: string;
  /** A request to the Worker through Miniflare, `path` on WORKERS_ORIGIN (a full URL goes as is). */
  fetch(path: string, init?: RequestInit): Promise<MiniflareResponse>;
  /** Everything workerd printed so far (the hub logs JSON lines). */
  output(): string;
  /** Stops workerd; the storage stays when persistDir was given. */
  dispose(): Promise<void>;
}

let bundle: Promise<string> | undefined;

/** Where built bundles are kept, one directory per content: processes share them, and nothing piles up per run. */
const BUNDLES = join(tmpdir(), 'dockwatch-workers-bundles');
/** A bundle nobody built for this long belongs to sources long gone. */
const STALE_MS = 24 * 3_600_000;

/**
 * The last bundle built from this work tree, as the name of its directory under BUNDLES (replaced
 * by a rename). One per work tree: another clone's bundle may be newer than this one's sources.
 */
const LATEST = join(BUNDLES, `latest-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`);

/**
 * The hub's Worker bundle, built when none of this machine's is current: the last one built is
 * reused while none of the files it was built from has changed (its build manifest,
 * scripts/build-manifest.mjs), so the test files of a run share one build instead of one each.
 * A build goes into a directory named after its content (an atomic rename, so parallel files
 * never see half a bundle). No exit hook: vitest ends its workers without running them.
 */
export function workersBundle(): Promise<string> {
  bundle ??= latestBundle().then((current) => current ?? buildBundle());
  return bundle;
}

async function latestBundle(): Promise<string | undefined> {
  const name = await readFile(LATEST, 'utf8').catch(() => '');
  if (!/^[0-9a-f]{16}$/.test(name)) return undefined;
  const dir = join(BUNDLES, name);
  if (changedInput(dir, ROOT) !== undefined) return undefined;
  await utimes(dir, new Date(), new Date()).catch(() => {});
  return join(dir, 'index.js');
}

async function buildBundle(): Promise<string> {
  await mkdir(BUNDLES, { recursive: true });
  const building = await mkdtemp(join(BUNDLES, 'building-'));
  try {
    const startedAt = Date.now();
    const built = await buildWorkersBundleWithInputs({ outfile: join(building, 'index.js') });
    writeBuildManifest(building, { startedAt, inputs: built.inputs });
    const digest = createHash('sha256')
      .update(await readFile(built.outfile))
      .digest('hex')
      .slice(0, 16);
    const dir = join(BUNDLES, digest);
    await rename(building, dir).catch((error: NodeJS.ErrnoException) => {
      // The same bundle was built before (by another process, or from sources that changed only in
      // ways the output does not show): use that one, with this build's manifest.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      writeBuildManifest(dir, { startedAt, inputs: built.inputs });
    });
    await utimes(dir, new Date(), new Date());
    const pointer = join(BUNDLES, `pointer-${process.pid}`);
    await writeFile(pointer, digest);
    await rename(pointer, LATEST);
    await removeStaleBundles(dir);
    return join(dir, 'index.js');
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}

async function removeStaleBundles(keep: string): Promise<void> {
  for (const name of await readdir(BUNDLES)) {
    const path = join(BUNDLES, name);
    if (path === keep) continue;
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
    if (Date.now() - mtimeMs > STALE_MS) await rm(path, { recursive: true, force: true });
  }
}

/**
 * The hub's Worker under real workerd through Miniflare, as `wrangler dev` runs it: the bundle, its
 * Durable Object (SQLite-backed, as wrangler.toml declares) and the Worker vars.
 */
export async function startWorkersHub(options: WorkersHubOptions = {}): Promise<WorkersHub> {
  const scriptPath = options.scriptPath ?? (await workersBundle());
  const ownDir = options.persistDir ? undefined : await mkdtemp(join(tmpdir(), 'dockwatch-workers-do-'));
  let output = '';
  const collect = (stream: Readable, echo: NodeJS.WritableStream) =>
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (options.echo) echo.write(chunk);
    });
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    // Module names are paths relative to this root; the default (cwd) cannot reach a temp dir.
    modulesRoot: dirname(scriptPath),
    compatibilityDate: COMPATIBILITY_DATE,
    durableObjects: {
      HUB: { className: options.className ?? 'HubDurableObject', useSQLite: true },
      ...(options.edgeGateways && { EDGE_GATEWAY: { className: 'EdgeGatewayObject', useSQLite: true } }),
    },
    durableObjectsPersist: options.persistDir ?? ownDir,
    bindings: {
      ...options.vars,
      ...(options.edgeGateways && { DD_EDGE_GATEWAY_SHARDS: String(options.edgeGateways) }),
    },
    ...(options.listen && { host: '127.0.0.1', port: 0 }),
    ...(options.verbose && { verbose: true }),
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      collect(stdout, process.stdout);
      collect(stderr, process.stderr);
    },
    ...options.miniflare,
  } as MiniflareOptions);
  let url: URL;
  try {
    url = await mf.ready;
  } catch (error) {
    await mf.dispose().catch(() => {});
    if (ownDir) await rm(ownDir, { recursive: true, force: true });
    throw error;
  }
  let disposed: Promise<void> | undefined;
  return {
    mf,
    url: url.origin,
    fetch: (path, init) => mf.dispatchFetch(path.startsWith('http') ? path : `${WORKERS_ORIGIN}${path}`, init),
    output: () => output,
    dispose: () => {
      disposed ??= (async () => {
        await mf.dispose();
        if (ownDir) await rm(ownDir, { recursive: true, force: true });
      })();
      return disposed;
    },
  };
}

/**
 * The hubs one suite starts and stops (a workerd restart is a stop and a start on one persistDir):
 * each is tracked until stopped, and `disposeAll` (afterAll) stops what a failed test left running.
 */
export function workersHubSet() {
  const running = new Set<WorkersHub>();
  return {
    async start(options: WorkersHubOptions = {}): Promise<WorkersHub> {
      const hub = await startWorkersHub(options);
      running.add(hub);
      return hub;
    },
    async stop(hub: WorkersHub): Promise<void> {
      running.delete(hub);
      await hub.dispose();
    },
    async disposeAll(): Promise<void> {
      await Promise.all([...running].map((hub) => hub.dispose()));
      running.clear();
    },
  };
}
