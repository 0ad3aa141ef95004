import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKeyFile } from '../../edge-agent/src/keys/key-file';
import { fromBase64 } from '../../shared/edge/sign-in';
import { AGENT_BUILD, REPO_ROOT } from '../support/hub-process';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The agent's entry as a real process; only PATH and HOME are inherited, so no DD_* of the caller leaks in. */
async function agent(args: string[], env: Record<string, string> = {}, viaNpm = false): Promise<Run> {
  const [command, argv] = viaNpm
    ? ['npm', ['run', '--silent', 'agent', '--', ...args]]
    : [process.execPath, [AGENT_BUILD, ...args]];
  const child = spawn(command as string, argv as string[], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('edge agent command line', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edge-agent-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('`npm run agent -- keygen` writes a 0600 key and prints the public key, key id and registration call', async () => {
    const keyFile = join(dir, 'agent.key');
    const run = await agent(['keygen', '--key', keyFile, '--name', 'nas', '--hub', 'wss://hub.example:3000'], {}, true);
    expect(run.code).toBe(0);
    const key = await readKeyFile(keyFile);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const publicKey = /^public key: (\S+)$/m.exec(run.stdout)?.[1] as string;
    expect(fromBase64(publicKey)).toEqual(key.publicKey);
    expect(run.stdout).toMatch(new RegExp(`^key id: +${key.keyId}$`, 'm'));
    expect(run.stdout).toContain(`POST /api/v1/edge/keys {"publicKey":"${publicKey}","label":"nas"}`);
    expect(run.stdout).toContain(`curl -X POST 'https://hub.example:3000/api/v1/edge/keys'`);
    expect(run.stdout).not.toContain((await readFile(keyFile, 'utf8')).split('\n')[1]);
  });

  it('refuses to overwrite a key without --force (exit 78, naming --key), and replaces it with --force --json', async () => {
    const keyFile = join(dir, 'twice.key');
    expect((await agent(['keygen', '--key', keyFile])).code).toBe(0);
    const before = (await readKeyFile(keyFile)).keyId;
    const again = await agent(['keygen', '--key', keyFile]);
    expect(again.code).toBe(78);
    expect(again.stderr).toContain(`--key: ${keyFile}: already exists; use --force`);
    expect((await readKeyFile(keyFile)).keyId).toBe(before);
    const forced = await agent(['keygen', '--key', keyFile, '--force', '--json']);
    expect(forced.code).toBe(0);
    const printed = JSON.parse(forced.stdout) as { keyId: string; publicKey: string; body: { label: string } };
    expect(printed.keyId).toBe((await readKeyFile(keyFile)).keyId);
    expect(printed.keyId).not.toBe(before);
  });

  it('exits 78 with a message naming the flag or variable at fault', async () => {
    const keyFile = join(dir, 'ok.key');
    expect((await agent(['keygen', '--key', keyFile])).code).toBe(0);
    const runs = await Promise.all([
      agent(['--key', keyFile]),
      agent(['--hub', 'ws://127.0.0.1:9', '--key', keyFile], { DD_LOG_LEVEL: 'loud' }),
      agent(['--hub', 'ws://127.0.0.1:9', '--key', join(dir, 'missing.key')]),
      agent(['--hub', 'ws://127.0.0.1:9', '--key', keyFile, '--name', 'Not Valid']),
    ]);
    expect(runs.map((run) => run.code)).toEqual([78, 78, 78, 78]);
    expect(runs[0]?.stderr).toMatch(/^edge agent: configuration error: --hub: is required/);
    expect(runs[1]?.stderr).toMatch(/^edge agent: configuration error: DD_LOG_LEVEL: /);
    expect(runs[2]?.stderr).toMatch(/^edge agent: --key: .*missing\.key: cannot read the key file/);
    expect(runs[3]?.stderr).toMatch(/^edge agent: configuration error: --name: /);
  });

  it('prints the usage on --help', async () => {
    const run = await agent(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('npm run agent -- keygen --key FILE');
  });
});
