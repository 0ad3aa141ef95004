/**
 * The hub under workerd as `npm run dev:workers` runs it: the configuration check
 * (scripts/check-workers-config.ts), the bundle (scripts/build-workers.mjs), then
 * `wrangler dev --local` from node_modules/.bin, on 127.0.0.1 and a persistence directory of the
 * test's own. Only the bundle's path differs (a temp file, so parallel suites do not share
 * dist/workers), and the port, which is ephemeral at the first start and kept across restarts so
 * agents dial the same URL again.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { onTestFailed } from 'vitest';
import { buildWorkersBundle } from '../../scripts/build-workers.mjs';
import type { AgentProcess } from './edge-agent-process';
import { REPO_ROOT } from './hub-process';
import { runCommand } from './run-command';

const WRANGLER = join(REPO_ROOT, 'node_modules', '.bin', 'wrangler');
const READY = /Ready on (http:\/\/127\.0\.0\.1:(\d+))/;
// Strips the colours wrangler may print around the address.
const ANSI = /\u001b\[[0-9;]*m/g;

export interface WranglerDev {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Every line wrangler and workerd printed (the hub's pino lines among them). */
  output: string[];
  /** How long from spawn to wrangler's "Ready on" line. */
  startupMs: number;
  /** SIGTERM to wrangler's process group (wrangler and its workerd), SIGKILL after 10 s. */
  stop(): Promise<void>;
}

export interface WranglerDevOptions {
  /** The bundle, from buildDevBundle. */
  script: string;
  /** `--persist-to`: the Durable Object's storage, and its alarm, live here. */
  persistTo: string;
  /** `--var NAME:VALUE` each (DD_SERVER_HOST:0.0.0.0 or DD_AUTH_* for a hub that runs). */
  vars: Record<string, string>;
  /** 0 (the default) lets wrangler pick one. */
  port?: number;
  startTimeoutMs?: number;
}

/** `npm run dev:workers`'s first two steps: the check on wrangler.toml (exit 0 or throw), then the bundle. */
export async function buildDevBundle(outfile: string): Promise<string> {
  const check = await runCommand(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'check-workers-config.ts'), join(REPO_ROOT, 'wrangler.toml')],
    { cwd: REPO_ROOT },
  );
  if (check.code !== 0) throw new Error(`check-workers-config exited ${check.code}: ${check.stderr}`);
  return buildWorkersBundle({ outfile });
}

/** Starts `wrangler dev --local` and resolves once it is ready to serve. */
export async function startWranglerDev(options: WranglerDevOptions): Promise<WranglerDev> {
  const args = [
    'dev',
    options.script,
    '--config',
    join(REPO_ROOT, 'wrangler.toml'),
    '--local',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port ?? 0),
    '--inspector-port',
    '0',
    '--persist-to',
    options.persistTo,
    '--show-interactive-dev-session=false',
    ...Object.entries(options.vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
  ];
  const startedAt = Date.now();
  // Its own process group: wrangler runs workerd as a child, and stop() must end both.
  const child = spawn(WRANGLER, args, {
    cwd: REPO_ROOT,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      WRANGLER_SEND_METRICS: 'false',
      // wrangler's logs and its dev registry (shared by every `wrangler dev` of the user, keyed by
      // the Worker's name) beside the persistence directory, not in ~/.config/.wrangler.
      XDG_CONFIG_HOME: join(dirname(options.persistTo), 'wrangler-config'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  // A crash of the test runner must not leave a workerd holding the port and the storage.
  const killOnExit = () => killGroup('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));

  const output: string[] = [];
  const ready = new Promise<number>((resolve, reject) => {
    const onLine = (raw: string) => {
      const line = raw.replace(ANSI, '');
      output.push(line);
      const match = READY.exec(line);
      if (match) resolve(Number(match[2]));
    };
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', onLine);
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', onLine);
    void exited.then(([code]) => reject(new Error(`wrangler dev exited ${code}:\n${output.slice(-20).join('\n')}`)));
  });
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`wrangler dev not ready in ${timeoutMs} ms:\n${output.slice(-20).join('\n')}`)),
      timeoutMs,
    );
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    killGroup('SIGTERM');
    const escalate = setTimeout(() => killGroup('SIGKILL'), 10_000);
    await exited;
    clearTimeout(escalate);
    // workerd may outlive wrangler by a moment; the group is ours alone.
    killGroup('SIGKILL');
  };
  try {
    const port = await Promise.race([ready, timedOut]);
    return { url: `http://127.0.0.1:${port}`, port, output, startupMs: Date.now() - startedAt, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** On a failure, the end of what workerd (the hub's log) and the agent printed. */
export function dumpOnFailure(hub: () => WranglerDev | undefined, agent: () => AgentProcess | undefined): void {
  onTestFailed(() => {
    console.log(`wrangler dev:\n${hub()?.output.slice(-60).join('\n')}`);
    console.log(
      `agent:\n${agent()
        ?.logs.slice(-30)
        .map((line) => `${line.component} ${line.msg}`)
        .join('\n')}`,
    );
  });
}
