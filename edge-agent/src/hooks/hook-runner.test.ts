import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHookRunner } from './hook-runner';

describe('the Node hook runner: /bin/sh -c on this host', () => {
  const runner = createNodeHookRunner();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dd-hook-runner-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the exit code and the output, with only PATH and the given variables in the environment', async () => {
    process.env['DD_HOOK_RUNNER_TEST_SECRET'] = 'must-not-leak';
    try {
      const result = await runner.run('echo "$DD_CONTAINER_NAME"; env; echo oops >&2; exit 7', {
        env: { DD_CONTAINER_NAME: 'web' },
        timeoutMs: 10_000,
      });
      expect(result.exitCode).toBe(7);
      expect(result.timedOut).toBe(false);
      expect(result.output).toContain('web');
      expect(result.output).toContain('oops');
      expect(result.output).toContain('PATH=');
      expect(result.output).not.toContain('must-not-leak');
    } finally {
      delete process.env['DD_HOOK_RUNNER_TEST_SECRET'];
    }
  });

  it('stops the whole process group at the timeout: a background child does not survive', async () => {
    const marker = join(dir, 'late.txt');
    const started = Date.now();
    const result = await runner.run(`(sleep 2; echo late > ${marker}) & sleep 30`, { env: {}, timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await expect(readFile(marker)).rejects.toThrow();
  });

  it('stops the command when its signal aborts (a cancelled update)', async () => {
    const controller = new AbortController();
    const running = runner.run('sleep 30', { env: {}, timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort('cancelled'), 100);
    const result = await running;
    expect(result).toMatchObject({ exitCode: null, timedOut: false });
  });
});
