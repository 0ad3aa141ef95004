import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../../../package.json' with { type: 'json' };
import { runCommandLineMode } from './command-line-modes';
import { type NodeHub, startNodeHub } from './start-node-hub';

describe('the hub entry’s one-shot modes', () => {
  let hub: NodeHub;
  const printed: string[] = [];
  const print = (line: string) => printed.push(line);

  beforeAll(async () => {
    hub = await startNodeHub({
      env: { DD_STORE_DRIVER: 'memory', DD_SERVER_PORT: '0', DD_SERVER_HOST: '127.0.0.1', DD_LOCAL_WATCHER: 'false' },
      sink: () => undefined,
    });
  });
  afterAll(() => hub?.close());

  it('prints the version for --version, and starts nothing without a mode', async () => {
    expect(await runCommandLineMode(['--version'], {}, print)).toBe(0);
    expect(printed.at(-1)).toBe(packageJson.version);
    expect(await runCommandLineMode([], {}, print)).toBeUndefined();
  });

  it('--healthcheck: 0 when the configured port answers /health, on loopback for a wildcard host', async () => {
    expect(await runCommandLineMode(['--healthcheck'], { DD_SERVER_PORT: String(hub.port) }, print)).toBe(0);
    const wildcard = { DD_SERVER_PORT: String(hub.port), DD_SERVER_HOST: '0.0.0.0' };
    expect(await runCommandLineMode(['--healthcheck'], wildcard, print)).toBe(0);
  });

  it('--healthcheck: 1 with the reason when nothing answers or the configuration is invalid', async () => {
    const stopped = await startNodeHub({
      env: { DD_STORE_DRIVER: 'memory', DD_SERVER_PORT: '0', DD_SERVER_HOST: '127.0.0.1', DD_LOCAL_WATCHER: 'false' },
      sink: () => undefined,
    });
    await stopped.close();
    expect(await runCommandLineMode(['--healthcheck'], { DD_SERVER_PORT: String(stopped.port) }, print)).toBe(1);
    expect(printed.at(-1)).toMatch(/^hub: health check failed/);
    expect(await runCommandLineMode(['--healthcheck'], { DD_SERVER_PORT: 'many' }, print)).toBe(1);
    expect(printed.at(-1)).toMatch(/DD_SERVER_PORT/);
  });
});
