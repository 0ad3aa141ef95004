import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundleTestEntry } from './test-entry-bundle';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The production build's entries, as `npm start` and `npm run agent` run them (built by test/support/build-once.ts). */
export const HUB_BUILD = join(REPO_ROOT, 'dist', 'hub.mjs');
export const AGENT_BUILD = join(REPO_ROOT, 'dist', 'agent.mjs');
/** `dockwatch check` from the production build, as README and docs/sources.md run it (`node dist/cli.mjs check`). */
export const CLI_BUILD = join(REPO_ROOT, 'dist', 'cli.mjs');
const ENTRY = HUB_BUILD;

const KILL_AFTER_MS = 5_000;

export interface HubProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Every stdout line so far (JSON log lines). */
  stdout: string[];
  stderr: string[];
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Spawns the hub as `npm start` runs it: `node dist/hub.mjs`, one pid (`entry`: another JavaScript
 * entry, such as a test entry bundled by test-entry-bundle.ts). Only PATH and HOME are inherited,
 * so the caller's own DD_* variables cannot change what is tested or measured.
 */
export function spawnHub(
  env: Record<string, string>,
  entry = ENTRY,
): {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | string>;
} {
  const child = spawn(process.execPath, [entry], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => stdout.push(line));
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  return { child, stdout, stderr, exited };
}

/**
 * Starts the hub process on an ephemeral loopback port and waits until it has logged
 * `hub listening` (which it does once stored state is loaded). `entry`: another entry file that
 * starts the same hub with test seams (test/support/*-hub-entry.ts, bundled first).
 */
export async function startHubProcess(
  env: Record<string, string>,
  timeoutMs = 20_000,
  entry = ENTRY,
): Promise<HubProcess> {
  const script = entry.endsWith('.ts') ? await bundleTestEntry(entry) : entry;
  // Callers load it from one address (crash bursts, benchmarks): the server-wide request limit is raised.
  const spawned = spawnHub(
    {
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      DD_LOG_LEVEL: 'info',
      DD_SERVER_RATELIMIT_MAX: '1000000000',
      ...env,
    },
    script,
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`hub did not start in ${timeoutMs} ms: ${spawned.stderr.join('\n')}`)),
      timeoutMs,
    );
    const poll = setInterval(() => {
      for (const line of spawned.stdout) {
        if (!line.includes('"hub listening"')) continue;
        clearInterval(poll);
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
        return;
      }
    }, 20);
    spawned.exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`hub exited (${code}) before listening: ${spawned.stderr.join('\n')}`));
    });
  });
  // A crash of the test runner must not leave a hub holding a port.
  const killOnExit = () => spawned.child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void spawned.exited.then(() => process.removeListener('exit', killOnExit));
  return {
    ...spawned,
    port,
    url: `http://127.0.0.1:${port}`,
    /** Sends the signal; a hub still running after 5 s is killed. Resolves with the exit code or signal. */
    async kill(signal = 'SIGTERM') {
      if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill(signal);
      const escalate = setTimeout(() => spawned.child.kill('SIGKILL'), KILL_AFTER_MS);
      try {
        return await spawned.exited;
      } finally {
        clearTimeout(escalate);
      }
    },
  };
}
