import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './hub-process';
import { terminate } from './terminate';

/** Unpacked from Debian's prometheus package by scripts/ensure-testbed.mjs (not installed as a service). */
const PROMETHEUS_ROOT = join(REPO_ROOT, '.testbed', 'prometheus-root', 'usr', 'bin');
export const PROMTOOL = join(PROMETHEUS_ROOT, 'promtool');
const PROMETHEUS = join(PROMETHEUS_ROOT, 'prometheus');

/** Fails the suite with the fix, rather than with a spawn ENOENT, when the test bed lacks promtool. */
export function requirePrometheusTools(): void {
  for (const binary of [PROMTOOL, PROMETHEUS]) {
    if (!existsSync(binary))
      throw new Error(`${binary} not found; run \`node scripts/ensure-testbed.mjs prometheus\` to unpack it`);
  }
}

export interface ToolResult {
  status: number | null;
  output: string;
}

/** Runs promtool (stdin optional) and returns its exit status with stdout and stderr together. */
export function promtool(args: readonly string[], input?: string): ToolResult {
  const result = spawnSync(PROMTOOL, args, { input, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface PrometheusServer {
  url: string;
  /** GET on the Prometheus HTTP API; the `data` field of its answer. */
  api<T>(path: string): Promise<T>;
  stop(): Promise<void>;
}

/**
 * A real Prometheus server on loopback scraping `target` (host:port) every second as job `dockwatch`,
 * with the given rule files loaded. Its storage is a fresh temp dir, removed at stop.
 */
export async function startPrometheus(target: string, ruleFiles: readonly string[] = []): Promise<PrometheusServer> {
  requirePrometheusTools();
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-prometheus-'));
  const config = [
    'global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}',
    `rule_files: ${JSON.stringify(ruleFiles)}`,
    'scrape_configs:',
    `  - {job_name: dockwatch, static_configs: [{targets: ["${target}"]}]}`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), config);
  const port = await freeLoopbackPort();
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    await terminate(child, exited);
    await rm(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus did not become ready: ${log.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async api<T>(path: string): Promise<T> {
      const body = (await (await fetch(`${url}/api/v1/${path}`)).json()) as { status: string; data: T };
      if (body.status !== 'success') throw new Error(`prometheus ${path}: ${JSON.stringify(body)}`);
      return body.data;
    },
    stop,
  };
}
