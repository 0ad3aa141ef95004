/**
 * 429/502/503/504 answers: Retry-After in seconds or as an HTTP date is waited out when short, handed
 * to the caller when long, and retries are bounded (maxRetries 2: three attempts in all).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeServer, reply, startFakeServer } from '../../support/fixtures/fake-registry';
import { errorOf, hostileClient, timed } from './hostile-helpers';

describe('Retry-After and bounded retries', () => {
  let registry: FakeServer;

  beforeAll(async () => {
    registry = await startFakeServer();
  });
  afterAll(() => registry.close());

  /** The first `failures` requests get `status` with `headers`; later ones succeed. */
  function failFirst(failures: number, status: number, headers: () => Record<string, string> = () => ({})): void {
    registry.reset((_req, res) => {
      if (registry.requests.length <= failures)
        return reply(res, status, { errors: [{ code: 'TOOMANYREQUESTS' }] }, headers());
      reply(res, 200, { tags: ['1.0.0'] });
    });
  }

  const listTags = () => hostileClient(registry.host).client.listTags('app');

  it('waits out a 429 with Retry-After: 1, then succeeds', async () => {
    failFirst(1, 429, () => ({ 'retry-after': '1' }));
    const { value, ms } = await timed(listTags);
    expect(value).toEqual(['1.0.0']);
    expect(registry.requests).toHaveLength(2);
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(ms).toBeLessThan(2_000);
  });

  it('waits out a 503 whose Retry-After is an HTTP date', async () => {
    let until = 0;
    failFirst(1, 503, () => {
      until = Date.now() + 1_500;
      return { 'retry-after': new Date(until).toUTCString() }; // second precision: 0.5 to 1.5 s ahead
    });
    const { value, ms } = await timed(listTags);
    expect(value).toEqual(['1.0.0']);
    expect(registry.requests).toHaveLength(2);
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(2_500);
  });

  it('a Retry-After of an hour is not waited out: rate-limited at once, carrying retryAfterMs', async () => {
    failFirst(9, 429, () => ({ 'retry-after': '3600' }));
    const { value: error, ms } = await timed(() => errorOf(listTags()));
    expect(error.kind).toBe('rate-limited');
    expect(error.status).toBe(429);
    expect(error.details.retryAfterMs).toBe(3_600_000);
    expect(registry.requests).toHaveLength(1);
    expect(ms).toBeLessThan(200);
  });

  it('a far HTTP-date Retry-After on a 503 is a server error carrying retryAfterMs', async () => {
    failFirst(9, 503, () => ({ 'retry-after': new Date(Date.now() + 7_200_000).toUTCString() }));
    const error = await errorOf(listTags());
    expect(error.kind).toBe('server');
    expect(error.status).toBe(503);
    expect(error.details.retryAfterMs).toBeGreaterThan(7_190_000);
    expect(error.details.retryAfterMs).toBeLessThanOrEqual(7_200_000);
    expect(registry.requests).toHaveLength(1);
  });

  it('retries are bounded: maxRetries + 1 = 3 attempts, for every retryable status', async () => {
    for (const [status, kind] of [
      [429, 'rate-limited'],
      [502, 'server'],
      [503, 'server'],
      [504, 'server'],
    ] as const) {
      failFirst(99, status, () => ({ 'retry-after': '0' }));
      const error = await errorOf(listTags());
      expect({ status, kind: error.kind, attempts: registry.requests.length }).toEqual({ status, kind, attempts: 3 });
      expect(error.details.retryAfterMs).toBe(0);
    }
  });

  it('without Retry-After the retries back off (about 250 ms, then 500 ms)', async () => {
    failFirst(99, 503);
    const { value: error, ms } = await timed(() => errorOf(listTags()));
    expect(error.kind).toBe('server');
    expect(error.details.retryAfterMs).toBeUndefined();
    expect(registry.requests).toHaveLength(3);
    expect(ms).toBeGreaterThanOrEqual(740);
    expect(ms).toBeLessThan(2_000);
  });

  it('502 and 504 are retried, then succeed', async () => {
    for (const status of [502, 504]) {
      failFirst(1, status);
      expect(await listTags()).toEqual(['1.0.0']);
      expect(registry.requests).toHaveLength(2);
    }
  });

  it('an unreadable Retry-After falls back to backoff; 500 and 501 are not retried', async () => {
    for (const retryAfter of ['soon', '-1', '1.5', '99999999999', 'Thu, 99 Foo 2025 99:99:99 GMT']) {
      failFirst(1, 429, () => ({ 'retry-after': retryAfter }));
      const { value, ms } = await timed(listTags);
      expect({ retryAfter, value }).toEqual({ retryAfter, value: ['1.0.0'] });
      expect(ms).toBeLessThan(1_000);
    }
    for (const status of [500, 501]) {
      failFirst(9, status, () => ({ 'retry-after': '0' }));
      expect((await errorOf(listTags())).kind).toBe('server');
      expect(registry.requests).toHaveLength(1);
    }
  });
});
