/**
 * `npm start` runs the production build (issue 30 item 2): dist/ rebuilt when stale, then the hub as
 * `node dist/hub.mjs` in place of the script's shell, so what stays running is npm and the hub, no
 * tsx. The real command, from the repository, on a free port; SIGTERM to the group stops it with 0.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { processGroupPids } from '../../bench/support/process-group';
import { REPO_ROOT } from '../support/hub-process';

const store = mkdtempSync(join(tmpdir(), 'dockwatch-npm-start-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
};

it('leaves npm and `node dist/hub.mjs` running, and stops on SIGTERM with 0', async () => {
  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DD_SERVER_PORT: String(port),
      DD_SERVER_HOST: '127.0.0.1',
      DD_STORE_PATH: store,
      DD_LOCAL_WATCHER: 'false',
      DD_LOG_LEVEL: 'warn',
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    // A rebuild when a source changed takes seconds; the hub is then ready within one.
    for (let tries = 0; ; tries++) {
      const healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (healthy) break;
      if (tries > 1200 || child.exitCode !== null) throw new Error(`npm start never got ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const running = processGroupPids(child.pid ?? 0)
      .map(commandLine)
      // The fs store's own helper, a child of the hub (hub/src/adapter/node/filesystem-sync.ts).
      .filter((line) => line !== '' && !line.includes('sync -f'));
    expect(running, running.join('\n')).toHaveLength(2);
    expect(running.some((line) => /\bnpm\b/.test(line) && /\bstart\b/.test(line))).toBe(true);
    expect(running.some((line) => /node dist\/hub\.mjs$/.test(line))).toBe(true);
    expect(running.some((line) => line.includes('tsx'))).toBe(false);
  } finally {
    if (child.exitCode === null) process.kill(-(child.pid ?? 0), 'SIGTERM');
  }
  expect(await exited).toBe(0);
}, 120_000);
