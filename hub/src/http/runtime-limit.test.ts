import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { jsonErrorHandler } from './error-handlers';
import type { HubEnv } from './hub-env';
import { isRuntimeLimit, runtimeLimitResponse } from './runtime-limit';

/** What workerd throws from setTimeout past 10,000 active timers: a DOMException of that name. */
const timersExceeded = () =>
  Object.assign(
    new Error(
      'You have exceeded the number of active timeouts you may set. max active timeouts: 10000, current active timeouts: 10000, finished timeouts: 10000',
    ),
    { name: 'QuotaExceededError' },
  );

describe('isRuntimeLimit', () => {
  it("knows workerd's refusals: quota, an overloaded or restarting object, the subrequest cap, a reset isolate", () => {
    expect(isRuntimeLimit(timersExceeded())).toBe(true);
    expect(isRuntimeLimit(new DOMException('storage quota', 'QuotaExceededError'))).toBe(true);
    expect(isRuntimeLimit(Object.assign(new Error('Durable Object is overloaded.'), { overloaded: true }))).toBe(true);
    expect(isRuntimeLimit(Object.assign(new Error('Network connection lost.'), { retryable: true }))).toBe(true);
    expect(isRuntimeLimit(new Error('Too many subrequests.'))).toBe(true);
    expect(isRuntimeLimit(new Error("Durable Object's isolate exceeded its memory limit and was reset."))).toBe(true);
    expect(isRuntimeLimit(new Error('/__edge-gateway/keys failed', { cause: timersExceeded() }))).toBe(true);
  });

  it('leaves the hub its own failures, and a cyclic cause chain ends', () => {
    expect(isRuntimeLimit(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isRuntimeLimit(Object.assign(new Error('remote'), { retryable: false, overloaded: false }))).toBe(false);
    expect(isRuntimeLimit('QuotaExceededError')).toBe(false);
    // A failed notification delivery worth retrying is the receiver's answer, not the runtime's.
    const delivery = Object.assign(new Error('ntfy: 502'), { name: 'DeliveryError', retryable: true });
    expect(isRuntimeLimit(delivery)).toBe(false);
    const cyclic = new Error('a') as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    expect(isRuntimeLimit(cyclic)).toBe(false);
  });
});

describe('a runtime limit reaching a request (issue 33 item 14)', () => {
  it('regression: a QuotaExceededError out of a route answers 503 with the JSON error body and Retry-After, not a 500', async () => {
    const app = new Hono<HubEnv>();
    app.post('/api/v1/edge/keys', () => {
      throw timersExceeded();
    });
    app.get('/api/v1/broken', () => {
      throw new TypeError('a bug');
    });
    app.onError(jsonErrorHandler(createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink })));
    const refused = await app.request('/api/v1/edge/keys', { method: 'POST' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({
      error: 'Service unavailable: the runtime refused this request for one of its limits; retry shortly',
      details: { reason: 'runtime-limit' },
    });
    expect((await app.request('/api/v1/broken')).status).toBe(500);
  });

  it('the Worker answers the same when the object itself threw', async () => {
    const response = runtimeLimitResponse();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(((await response.json()) as { details: unknown }).details).toEqual({ reason: 'runtime-limit' });
  });
});
