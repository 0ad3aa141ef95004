import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './hub-process';
import { bundleTestEntry } from './test-entry-bundle';

const ENTRY = join(REPO_ROOT, 'test', 'support', 'pausing-hub-entry.ts');

export interface PausingHub {
  child: ChildProcess;
  url: string;
  stdout: string[];
  /** Resolves with the operation id once an operation has paused at the phase. */
  paused: Promise<string>;
  exited: Promise<number | string>;
}

/** A hub process (pausing-hub-entry.ts) that stops its update run at `pauseAt`; ready once it listens. */
export async function startPausingHub(
  env: Record<string, string>,
  pauseAt: string,
  timeoutMs = 30_000,
): Promise<PausingHub> {
  const child = spawn(process.execPath, [await bundleTestEntry(ENTRY)], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      DD_SERVER_RATELIMIT_MAX: '1000000000',
      ...env,
      UPDATE_TEST_PAUSE_AT: pauseAt,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  let onPaused: (id: string) => void = () => undefined;
  const paused = new Promise<string>((resolve) => {
    onPaused = resolve;
  });
  let onListening: (port: number) => void = () => undefined;
  const listening = new Promise<number>((resolve) => {
    onListening = resolve;
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    stdout.push(line);
    if (line.startsWith('PAUSED ')) onPaused(line.split(' ')[2] ?? '');
    else if (line.includes('"hub listening"')) onListening((JSON.parse(line) as { port: number }).port);
  });
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const port = await Promise.race([
    listening,
    exited.then((code) => Promise.reject(new Error(`pausing hub exited (${code}): ${stderr.join('\n')}`))),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`pausing hub did not listen within ${timeoutMs} ms`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  return { child, url: `http://127.0.0.1:${port}`, stdout, paused, exited };
}
