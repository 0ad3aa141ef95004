import { describe, expect, it } from 'vitest';
import type { DockerLogLine } from '../../../shared/docker/docker-host';
import { acceptsGzip, logFileName, logText, parseSince } from './container-log-query';

describe('container log query helpers', () => {
  it('reads since as Unix seconds or as an ISO 8601 instant', () => {
    expect(parseSince('0')).toBe(0);
    expect(parseSince('1700000000')).toBe(1_700_000_000);
    expect(parseSince('1700000000.25')).toBe(1_700_000_000.25);
    expect(parseSince('2023-11-14T22:13:20Z')).toBe(1_700_000_000);
    expect(parseSince('2023-11-14T23:13:20.500+01:00')).toBe(1_700_000_000.5);
    for (const bad of ['', '-1', '1e9', 'yesterday', '2024-02-30T00:00:00Z', '1700000000.', '123456789012']) {
      expect(parseSince(bad), bad).toBeUndefined();
    }
  });

  it('takes gzip only when Accept-Encoding asks for it', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('deflate, gzip ; q=0')).toBe(false);
    expect(acceptsGzip('gzipped, identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('names the file after the container, safe in a quoted header', () => {
    expect(logFileName('web-1.prod')).toBe('web-1.prod.log');
    expect(logFileName('a"b\\c\r\n')).toBe('a_b_c__.log');
  });

  it('writes one line per log line, with the timestamp when asked, in chunks pulled on demand', async () => {
    const lines: DockerLogLine[] = Array.from({ length: 600 }, (_, i) => ({
      stream: i % 2 ? 'stderr' : 'stdout',
      ts: `2026-01-01T00:00:00.${String(i).padStart(9, '0')}Z`,
      line: `line ${i}`,
    }));
    async function* source() {
      yield* lines;
    }
    const read = async (timestamps: boolean) => {
      const iterator = source();
      const first = await iterator.next();
      return new Response(
        logText(iterator, first, { timestamps, onCancel: () => undefined, onError: () => undefined }),
      ).text();
    };
    expect(await read(false)).toBe(lines.map((l) => `${l.line}\n`).join(''));
    expect(await read(true)).toBe(lines.map((l) => `${l.ts} ${l.line}\n`).join(''));
  });

  it('ends the Docker stream when the client cancels, and cuts the file when Docker fails midway', async () => {
    let cancelled = false;
    let finished = false;
    async function* endless() {
      try {
        for (let i = 0; ; i++) yield { stream: 'stdout' as const, ts: '', line: String(i) };
      } finally {
        finished = true;
      }
    }
    const iterator = endless();
    const stream = logText(iterator, await iterator.next(), {
      timestamps: false,
      onCancel: () => {
        cancelled = true;
      },
      onError: () => undefined,
    });
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    expect({ cancelled, finished }).toEqual({ cancelled: true, finished: true });

    const errors: unknown[] = [];
    async function* failing() {
      yield { stream: 'stdout' as const, ts: '', line: 'one' };
      throw new Error('docker: connection reset');
    }
    const broken = failing();
    const text = logText(broken, await broken.next(), {
      timestamps: false,
      onCancel: () => undefined,
      onError: (e) => errors.push(e),
    });
    await expect(new Response(text).text()).rejects.toThrow('connection reset');
    expect(errors).toHaveLength(1);
  });
});
