import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger } from '../../../shared/logging/logger';
import type { HubEnv } from '../http/hub-env';
import { BASIC_VERIFIED_TTL_MS, createBasicCredentialAuthenticator } from './basic-credential-auth';
import type { LoginAttempt, LoginVerifier } from './login-service';
import {
  createSignInLimits,
  LOGIN_FAILURE_LIMIT,
  USERNAME_FREE_FAILURES,
  USERNAME_MAX_DELAY_MS,
} from './sign-in-limits';

const PASSWORD = 'correct horse battery staple';
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** A verifier that knows one user and counts (and can hold) its argon2id verifications. */
function countingVerifier() {
  const calls: LoginAttempt[] = [];
  let hold: Promise<void> = Promise.resolve();
  const verifier: LoginVerifier = {
    async verify(attempt) {
      calls.push(attempt);
      await hold;
      return attempt.username === 'alice' && attempt.password === PASSWORD ? 'password' : undefined;
    },
  };
  return {
    verifier,
    calls,
    holdUntil(release: Promise<void>) {
      hold = release;
    },
  };
}

function bed() {
  let clock = 1_000_000;
  const counting = countingVerifier();
  const logged: string[] = [];
  const audited: string[] = [];
  const waits: number[] = [];
  const now = () => clock;
  const auth = createBasicCredentialAuthenticator({
    verifier: counting.verifier,
    signInLimits: createSignInLimits({
      now,
      wait: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    }),
    now,
    logger: createLogger({
      level: 'trace',
      ring: createLogRing(),
      sink: (entry, fields) => logged.push(JSON.stringify({ entry, fields })),
    }),
    audit: {
      async append(record) {
        audited.push(JSON.stringify(record));
        return { id: String(audited.length), timestamp: new Date(clock).toISOString(), ...record };
      },
    },
    clientAddress: (c) => c.req.header('x-test-address'),
  });
  const app = new Hono<HubEnv>();
  app.get('/', async (c) => {
    const result = await auth.authenticate(c);
    if (result instanceof Response) return result;
    return c.json({ principal: result ?? null });
  });
  const request = (headers: Record<string, string>, address = '10.0.0.1') =>
    app.request('/', { headers: { ...headers, 'x-test-address': address } });
  return {
    request,
    calls: counting.calls,
    holdUntil: counting.holdUntil,
    logged,
    audited,
    waits,
    advance(ms: number) {
      clock += ms;
    },
  };
}

describe('HTTP Basic on the compatibility routes', () => {
  it('verifies a username and password once, then answers from the cache until it expires', async () => {
    const b = bed();
    for (let i = 0; i < 5; i++) {
      const response = await b.request(basic('alice', PASSWORD));
      expect(await response.json()).toEqual({
        principal: { kind: 'session', username: 'alice', assurance: 'password' },
      });
    }
    expect(b.calls).toHaveLength(1);
    b.advance(BASIC_VERIFIED_TTL_MS - 1);
    await b.request(basic('alice', PASSWORD));
    expect(b.calls).toHaveLength(1);
    b.advance(1);
    await b.request(basic('alice', PASSWORD));
    expect(b.calls).toHaveLength(2);
  });

  it('shares one verification among concurrent first requests (the card asks for every container at once)', async () => {
    const b = bed();
    let release: () => void = () => undefined;
    b.holdUntil(
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
    const pending = Array.from({ length: 8 }, () => b.request(basic('alice', PASSWORD)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    const statuses = (await Promise.all(pending)).map((response) => response.status);
    expect(statuses).toEqual(Array(8).fill(200));
    expect(b.calls).toHaveLength(1);
  });

  it('never takes a cached user with another password, and counts each failure until 429', async () => {
    const b = bed();
    expect((await b.request(basic('alice', PASSWORD))).status).toBe(200);
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) {
      const response = await b.request(basic('alice', `guess-${i}`));
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'Invalid credentials' });
      expect(response.headers.get('www-authenticate')).toBeNull();
    }
    expect(b.calls).toHaveLength(1 + LOGIN_FAILURE_LIMIT);
    // Blocked before any verification, the right password too; another address still signs in.
    const blocked = await b.request(basic('alice', PASSWORD));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(b.calls).toHaveLength(1 + LOGIN_FAILURE_LIMIT);
    expect((await b.request(basic('bob', 'x'), '10.0.0.2')).status).toBe(401);
  });

  // Issue 33 item 5: failures of alice from anywhere answered her own polling card 429 for 15 minutes.
  it("keeps the owner's client working while others guess its username; a guessing address gets no shortcut", async () => {
    const b = bed();
    const owner = '10.9.9.9';
    expect((await b.request(basic('alice', PASSWORD), owner)).status).toBe(200);
    for (let i = 0; i < USERNAME_FREE_FAILURES + 5; i++)
      expect((await b.request(basic('alice', `guess-${i}`), `10.0.1.${i}`)).status).toBe(401);
    // Remembered: answered at once, no wait (the guessers from fresh addresses were the ones waiting).
    const waited = b.waits.length;
    expect(waited).toBeGreaterThan(0);
    expect((await b.request(basic('alice', PASSWORD), owner)).status).toBe(200);
    expect(b.waits).toHaveLength(waited);
    // Forgotten: verified again after the server's wait, never refused.
    b.advance(BASIC_VERIFIED_TTL_MS);
    expect((await b.request(basic('alice', 'one-more-guess'), '10.0.2.1')).status).toBe(401);
    expect((await b.request(basic('alice', PASSWORD), owner)).status).toBe(200);
    expect(b.waits).toHaveLength(waited + 1);
    expect(b.waits.at(-1)).toBeLessThanOrEqual(USERNAME_MAX_DELAY_MS);
    // A guessing address meets the wait even with the remembered password: 429 tells it nothing.
    expect((await b.request(basic('alice', 'yet-another-guess'), '10.0.2.2')).status).toBe(401);
    const guesser = await b.request(basic('alice', PASSWORD), '10.0.1.0');
    expect(guesser.status).toBe(429);
    expect(Number(guesser.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses malformed credentials without a verification, and passes requests without Basic', async () => {
    const b = bed();
    for (const header of ['Basic !!!', `Basic ${btoa('no-colon')}`, `Basic ${btoa(':only-password')}`]) {
      expect((await b.request({ authorization: header })).status).toBe(401);
    }
    expect(b.calls).toHaveLength(0);
    expect(await (await b.request({})).json()).toEqual({ principal: null });
    expect(await (await b.request({ authorization: 'Bearer ddk_x_y' })).json()).toEqual({ principal: null });
  });

  it('logs and audits a failure without the password', async () => {
    const b = bed();
    await b.request(basic('alice', 'hunter2-secret'));
    expect(b.audited.map((entry) => JSON.parse(entry).details)).toEqual([
      'Basic authentication failed for "alice" from 10.0.0.1',
    ]);
    expect([...b.logged, ...b.audited].join('\n')).not.toContain('hunter2-secret');
  });
});
