import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';
import { UiBundleSchema } from '../../hub/src/ui/ui-bundle';
import { startWorkersHub, workersBundle } from '../support/workers-hub';

/**
 * `npm run deploy:workers` without an account: `-- --dry-run --outdir` makes wrangler write the
 * upload instead of sending it. What is proven here: the upload is the bundle the Miniflare suites
 * run, byte for byte, with its Durable Object, its migration and the UI. A real deploy is not.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
let dir: string;
let testedBundle: string;
let upload: string;
let deploy: { status: number | null; stdout: string; stderr: string };

function run(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dockwatch-deploy-'));
  // The very bundle the Miniflare suites run (test/support/workers-hub.ts).
  testedBundle = await workersBundle();
  upload = join(dir, 'upload');
  deploy = await run(process.execPath, [join(ROOT, 'scripts/deploy-workers.mjs'), '--dry-run', '--outdir', upload]);
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm run deploy:workers (wrangler deploy --dry-run)', () => {
  it('uploads exactly the bundle the Miniflare suites run', async () => {
    expect(deploy.status, deploy.stderr).toBe(0);
    const uploaded = await sha256(join(upload, 'index.js'));
    expect(uploaded).toBe(await sha256(testedBundle));
    // And the file wrangler.toml's `main` names, which the script built.
    expect(uploaded).toBe(await sha256(join(ROOT, 'dist/workers/index.js')));
  });

  it('binds the hub and edge gateway Durable Objects and declares their SQLite migrations', () => {
    expect(deploy.stdout).toMatch(/env\.HUB \(HubDurableObject\)\s+Durable Object/);
    expect(deploy.stdout).toMatch(/env\.EDGE_GATEWAY \(EdgeGatewayObject\)\s+Durable Object/);
    // The dry run prints no migrations: read them as wrangler deploy does, from the same file.
    const config = unstable_readConfig({ config: join(ROOT, 'wrangler.toml') });
    expect(config.no_bundle).toBe(true);
    expect(config.main).toBe(join(ROOT, 'dist/workers/index.js'));
    expect(config.durable_objects.bindings).toEqual([
      { name: 'HUB', class_name: 'HubDurableObject' },
      { name: 'EDGE_GATEWAY', class_name: 'EdgeGatewayObject' },
    ]);
    // Append-only: a deployed class's migration is never edited, the gateways came in a later one.
    expect(config.migrations).toEqual([
      { tag: 'v1', new_sqlite_classes: ['HubDurableObject'] },
      { tag: 'v2', new_sqlite_classes: ['EdgeGatewayObject'] },
    ]);
    expect(config.vars.DD_EDGE_GATEWAY_SHARDS).toBe('64');
  });

  it('carries every file of the web UI, and the uploaded module serves it and the API under workerd', async () => {
    const source = await readFile(join(upload, 'index.js'), 'utf8');
    const ui = v.parse(UiBundleSchema, JSON.parse(await readFile(join(ROOT, 'dist/ui/ui-bundle.json'), 'utf8')));
    expect(ui.assets.length).toBeGreaterThan(1);
    for (const asset of ui.assets) expect(source).toContain(asset.gzip);

    const mf = await startWorkersHub({
      scriptPath: join(upload, 'index.js'),
      vars: { DD_LOG_LEVEL: 'warn', DD_SERVER_HOST: '0.0.0.0' },
    });
    try {
      const page = await mf.fetch('/', { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      const script = /src="(\/assets\/app-[A-Z0-9]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      expect((await mf.fetch(script ?? '')).status).toBe(200);
      const server = (await (await mf.fetch('/api/v1/server')).json()) as Record<string, unknown>;
      expect(server).toMatchObject({ runtime: 'workers', storage: { driver: 'durable-object' } });
    } finally {
      await mf.dispose();
    }
  }, 60_000);
});

describe('the deploy check (check-workers-config.ts --deploy)', () => {
  async function checkDeploy(vars: string) {
    const project = join(dir, Math.random().toString(36).slice(2));
    await mkdir(project);
    const config = join(project, 'wrangler.toml');
    await writeFile(config, `name = "hub"\nmain = "index.js"\ncompatibility_date = "2026-04-01"\n\n[vars]\n${vars}`);
    // A local secret file is for `wrangler dev`; a deploy never uploads it.
    await writeFile(join(project, '.dev.vars'), 'DD_NOTIFICATION_SMTP_MAIL_HOST=smtp.example.test\n');
    return run(TSX, ['scripts/check-workers-config.ts', '--deploy', config]);
  }

  it('stops a deploy with a credential in [vars], naming it and `wrangler secret put`', async () => {
    const refused = await checkDeploy(
      'DD_AUTH_BASIC_ADMIN_USER = "admin"\nDD_AUTH_BASIC_ADMIN_HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"\nDD_REGISTRY_GHCR_MINE_TOKEN = "ghp_x"\n',
    );
    expect(refused.status).toBe(78);
    expect(refused.stderr).toContain('DD_AUTH_BASIC_ADMIN_HASH, DD_REGISTRY_GHCR_MINE_TOKEN');
    expect(refused.stderr).toContain('wrangler secret put');
    expect(refused.stderr).not.toContain('DD_AUTH_BASIC_ADMIN_USER,');
  });

  it('passes plain variables, and reads [vars] alone, not .dev.vars', async () => {
    const passed = await checkDeploy('DD_LOG_LEVEL = "info"\nDD_AUTH_BASIC_ADMIN_USER = "admin"\n');
    expect(passed).toMatchObject({ status: 0, stderr: '' });
  });
});
