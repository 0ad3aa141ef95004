import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNewKeyFile } from '../keys/key-file';
import { checkAgentHealth } from './healthcheck';
import { writeLinkStatus } from './link-status-file';

describe('agent --healthcheck in edge mode', () => {
  let dir: string;
  let keyFile: string;
  const env = { DD_LOCAL_WATCHER: 'false' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dockwatch-agent-health-'));
    keyFile = join(dir, 'agent.key');
    await writeNewKeyFile(keyFile);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is healthy only while the link status file says connected', async () => {
    const command = { command: 'healthcheck' as const, keyFile };
    expect(await checkAgentHealth(command, env)).toMatch(/has not reached the hub yet/);
    await writeLinkStatus(keyFile, { state: 'connected', since: Date.now() });
    expect(await checkAgentHealth(command, env)).toBeUndefined();
    await writeLinkStatus(keyFile, { state: 'disconnected', since: Date.UTC(2026, 0, 1) });
    expect(await checkAgentHealth(command, env)).toBe('disconnected from the hub since 2026-01-01T00:00:00.000Z');
  });

  it('is unhealthy with a key or variables a start would refuse', async () => {
    await writeLinkStatus(keyFile, { state: 'connected', since: Date.now() });
    const broken = join(dir, 'broken.key');
    await writeFile(broken, 'not a key');
    expect(await checkAgentHealth({ command: 'healthcheck', keyFile: broken }, env)).toMatch(/not a PEM private key/);
    expect(await checkAgentHealth({ command: 'healthcheck', keyFile }, { DD_LOG_LEVEL: 'loud' })).toMatch(
      /DD_LOG_LEVEL/,
    );
  });
});
