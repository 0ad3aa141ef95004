import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHub, startHubProcess } from '../support/hub-process';

describe('the Node entry as npm start runs it', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hub-entry-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('refuses to start on a bad variable, naming it, with exit code 78', async () => {
    for (const [name, value] of [
      ['DD_SERVER_PORT', 'eighty'],
      ['DD_LOG_LEVEL', 'chatty'],
      ['DD_TRIGGER_SLACK_X_URL', 'https://example'],
      ['DD_REGISTRY_NOPE_MINE_URL', 'https://example'],
      ['DD_REGISTRY_CUSTOM_MINE_URL', 'ftp://example'],
    ] as const) {
      const hub = spawnHub({ [name]: value, DD_STORE_DRIVER: 'memory' });
      expect(await hub.exited).toBe(78);
      expect(hub.stderr.join('\n')).toContain(`configuration error: ${name}:`);
    }
    // Five cold starts of the TypeScript entry one after the other: about 3 s each on a busy 2-core machine.
  }, 90_000);

  it('keeps settings in ./data files across a restart, and stops cleanly on SIGTERM', async () => {
    const env = { DD_STORE_PATH: dataDir };
    const first = await startHubProcess(env);
    const health = await fetch(`${first.url}/health`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const patched = await fetch(`${first.url}/api/v1/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ updateMode: 'auto' }),
    });
    expect(patched.status).toBe(200);
    expect(await first.kill('SIGTERM')).toBe(0);
    expect(first.stdout.some((line) => line.includes('"shutting down"'))).toBe(true);

    const second = await startHubProcess(env);
    expect(await (await fetch(`${second.url}/api/v1/settings`)).json()).toEqual({
      internetlessMode: false,
      updateMode: 'auto',
      approvalRequired: false,
    });
    // The anonymous-mode warning is logged as JSON on stdout, with its component.
    const warning = second.stdout.map((line) => JSON.parse(line)).find((entry) => entry.msg.includes('anonymous mode'));
    expect(warning).toMatchObject({ level: 40, component: 'hub' });
    expect(await second.kill('SIGTERM')).toBe(0);
  });
});
