import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { jsonErrorServerFactory } from './json-http-errors';
import { LISTEN_BACKLOG } from './listen-backlog';

/** A listening socket's backlog as the kernel holds it: `ss` shows it as the Send-Q of a LISTEN line. */
function kernelBacklog(port: number): number {
  const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
  return Number(line.split(/\s+/)[2]);
}

describe('listen backlog', () => {
  it('asks the kernel for a 4096-deep accept queue (capped by net.core.somaxconn), as the hub serves', async () => {
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const listening = serve(
        {
          fetch: () => new Response('ok'),
          port: 0,
          hostname: '127.0.0.1',
          createServer: jsonErrorServerFactory(() => new Response('ok'), '127.0.0.1'),
        },
        () => resolve(listening),
      );
    });
    try {
      const port = (server.address() as AddressInfo).port;
      expect(kernelBacklog(port)).toBe(Math.min(LISTEN_BACKLOG, somaxconn));
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
    } finally {
      server.close();
    }
  });
});
