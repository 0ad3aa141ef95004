import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type ProcessSample, sampleProcess } from './proc-stats';

export interface BuiltHub {
  /** http://127.0.0.1:<port> */
  url: string;
  pid: number;
  /** RSS and CPU time of the hub process, from /proc. */
  sample(): ProcessSample;
  /** SIGTERM (SIGKILL after 10 s); resolves with the main thread's CPU profile when one was asked for. */
  stop(): Promise<string | undefined>;
}

/**
 * The hub as `npm start` runs it (package.json): `node scripts/build.mjs --if-stale`, then
 * `node dist/hub.mjs`, without npm in between (npm only waits for it). With `profileDir`, V8's
 * sampling profiler writes the main thread's profile there when the hub exits.
 */
export async function startBuiltHub(
  root: string,
  env: Record<string, string>,
  options: { profileDir?: string | undefined; startTimeoutMs?: number } = {},
): Promise<BuiltHub> {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`built-hub: the build failed: ${built.stderr}`);
  const profile = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, join(root, 'dist', 'hub.mjs')], {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/root',
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      DD_LOG_FORMAT: 'json',
      DD_LOG_LEVEL: 'info',
      // One benchmark client from one address: the server-wide request limit must not shape the figures.
      DD_SERVER_RATELIMIT_MAX: '1000000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stderr: string[] = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => stderr.push(line));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`built-hub: not listening after ${options.startTimeoutMs ?? 30_000} ms`)),
      options.startTimeoutMs ?? 30_000,
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (!line.includes('"hub listening"')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    void exited.then(() => reject(new Error(`built-hub: exited before listening: ${stderr.join('\n')}`)));
  });
  const pid = child.pid as number;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    sample: () => sampleProcess(pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // Writing a long run's profile takes seconds of its own, and a killed process writes none.
      const escalate = setTimeout(() => child.kill('SIGKILL'), options.profileDir ? 60_000 : 10_000);
      await exited;
      clearTimeout(escalate);
      process.removeListener('exit', killOnExit);
      if (!options.profileDir) return undefined;
      const file = (await readdir(options.profileDir)).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
      return file === undefined ? undefined : join(options.profileDir, file);
    },
  };
}
