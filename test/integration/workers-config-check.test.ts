import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../support/run-command';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dockwatch-wrangler-'));
  results = await Promise.all([check(PORTABLE), check(NODE_ONLY, NODE_ONLY_DEV_VARS), check(FATAL)]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * `npm run dev:workers`'s first step, on a wrangler.toml of the test's own and its .dev.vars, each in
 * a folder of its own so that the checks run at once (each loads wrangler, seconds on a busy machine).
 */
async function check(vars: string, devVars = ''): Promise<{ status: number | null; stderr: string }> {
  const project = join(dir, Math.random().toString(36).slice(2));
  await mkdir(project);
  const config = join(project, 'wrangler.toml');
  await writeFile(config, `name = "hub"\nmain = "index.js"\ncompatibility_date = "2026-04-01"\n\n[vars]\n${vars}`);
  await writeFile(join(project, '.dev.vars'), devVars);
  const { code, stderr } = await runCommand(TSX, ['scripts/check-workers-config.ts', config], { cwd: ROOT });
  return { status: code, stderr };
}

const PORTABLE = 'DD_LOG_LEVEL = "info"\nDD_NOTIFICATION_NTFY_OPS_TOPIC = "ops"\n';
const NODE_ONLY = 'DD_NOTIFICATION_SMTP_MAIL_HOST = "smtp.example.test"\n';
const NODE_ONLY_DEV_VARS = 'DD_WATCHER_LOCAL_SOCKET=/var/run/docker.sock\n';
const FATAL = 'DD_AUTH_BASIC_ADMIN_HASH__FILE = "/run/secrets/hash"\n';
let results: Awaited<ReturnType<typeof check>>[];

describe('the Workers configuration check (npm run dev:workers)', () => {
  it('passes a portable configuration silently', async () => {
    expect(await check('DD_LOG_LEVEL = "info"\nDD_NOTIFICATION_NTFY_OPS_TOPIC = "ops"\n')).toEqual({
      status: 0,
      stderr: '',
    });
  });

  it('warns of each Node-only variable, from [vars] and .dev.vars, naming the runtime', async () => {
    const { status, stderr } = results[1] ?? { status: null, stderr: '' };
    expect(status).toBe(0);
    expect(stderr).toMatch(
      /DD_NOTIFICATION_SMTP_MAIL_HOST: not available on the workers runtime, the hub runs without it: smtp/,
    );
    expect(stderr).toMatch(/DD_WATCHER_LOCAL_SOCKET: not available on the workers runtime.*edge agent/);
  });

  it('stops with exit code 78 where the hub would refuse to run', async () => {
    const { status, stderr } = results[2] ?? { status: null, stderr: '' };
    expect(status).toBe(78);
    expect(stderr).toMatch(/configuration error: DD_AUTH_BASIC_ADMIN_HASH__FILE: not available on the workers runtime/);
  });
});
