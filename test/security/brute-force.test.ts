/**
 * Guessing passwords and key secrets over HTTP until the limiters answer (http-interface §8, decisions §4, §5,
 * docs/security.md "Failed sign-ins"): past the limit even the right credential gets 429 from that
 * address; a username guessed from many addresses is slowed down (growing, capped waits), never
 * locked: its owner signs in from an address that has not failed, and keeps the sessions and
 * remembered Basic credentials it has.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAILED_ATTEMPT_LIMIT } from '../../hub/src/auth/api-key-auth';
import { USERNAME_FREE_FAILURES, USERNAME_MAX_DELAY_MS } from '../../hub/src/auth/sign-in-limits';
import { LOGIN_FAILURE_LIMIT } from '../../hub/src/routes/auth-session-routes';
import { expectJsonError, jsonInit } from '../support/hub-harness';
import {
  type AddressedHub,
  BOB_PASSWORD,
  cookieHeader,
  MODES,
  PASSWORD,
  sessionIdOf,
  startAddressedHub,
  totp,
  USERS_ENV,
} from './auth-fixtures';

const ATTACKER = '127.0.0.3';
const BYSTANDER = '127.0.0.4';

async function expectSignInLimited(response: Response): Promise<number> {
  const retryAfter = Number(response.headers.get('retry-after'));
  const body = await expectJsonError(response, 429);
  expect(body.error).toBe('Too many failed sign-in attempts');
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(900);
  expect(sessionIdOf(response)).toBeUndefined();
  return retryAfter;
}

for (const mode of MODES) {
  describe(`brute force over HTTP [${mode}]`, () => {
    let hub: AddressedHub | undefined;
    afterEach(async () => {
      await hub?.close();
      hub = undefined;
    });

    /** A clock of the test's own; the server's sign-in waits are recorded and move it. */
    function testClock() {
      const clock = { at: Date.now(), waits: [] as number[] };
      const deps = {
        now: () => clock.at,
        signInWait: async (ms: number) => {
          clock.waits.push(ms);
          clock.at += ms;
        },
      };
      return { clock, deps };
    }

    it('guesses a password until 429; then the right one is refused from that address, not from others', async () => {
      const { clock, deps } = testClock();
      hub = await startAddressedHub(mode, USERS_ENV, deps);
      const guesses = Array.from({ length: LOGIN_FAILURE_LIMIT }, (_, i) => `guess-${i}-${'x'.repeat(i)}`);
      for (const password of guesses) {
        const response = await hub.login({ username: 'alice', password }, ATTACKER);
        await expectJsonError(response, 401);
      }
      // The attacker keeps guessing: every answer is now 429, whatever the guess.
      await expectSignInLimited(await hub.login({ username: 'alice', password: 'one-more-guess' }, ATTACKER));
      await expectSignInLimited(await hub.login({ username: 'alice', password: PASSWORD }, ATTACKER));
      // The address is blocked for every user.
      await expectSignInLimited(
        await hub.login({ username: 'bob', password: BOB_PASSWORD, otp: totp(Date.now()) }, ATTACKER),
      );
      // Issue 33 item 5: the user is not locked out; from an address that has not failed it signs in,
      // after a wait of the server's of a few seconds at most.
      const alice = await hub.login({ username: 'alice', password: PASSWORD }, BYSTANDER);
      expect(alice.status).toBe(200);
      expect(clock.waits.length).toBeGreaterThan(0);
      expect(Math.max(...clock.waits)).toBeLessThanOrEqual(USERNAME_MAX_DELAY_MS);
      // Another user from another address signs in as usual.
      const bob = await hub.login({ username: 'bob', password: BOB_PASSWORD, otp: totp(clock.at) }, BYSTANDER);
      expect(bob.status).toBe(200);
      expect(sessionIdOf(bob)).toMatch(/^[a-f0-9]{64}$/);
      // Sessions that exist keep working: the limit is on signing in.
      const session = cookieHeader(sessionIdOf(bob) as string);
      expect((await hub.from(ATTACKER, '/api/v1/auth/user', { headers: session })).status).toBe(200);
      // The trail has each failure, and none of the guesses.
      const audit = await (await hub.from(BYSTANDER, '/api/v1/audit?action=auth-login', { headers: session })).text();
      expect(JSON.parse(audit).data.filter((entry: { status: string }) => entry.status === 'failed')).toHaveLength(
        LOGIN_FAILURE_LIMIT,
      );
      for (const password of guesses) expect(audit).not.toContain(password);
    });

    // Issue 33 item 5: ten failures of a username answered its owner 429 everywhere for 15 minutes.
    it('slows a spread guess of one username down (429 with a growing Retry-After); its owner still gets in', async () => {
      const { clock, deps } = testClock();
      hub = await startAddressedHub(mode, { ...USERS_ENV, DD_COMPAT_WUDCARD: 'true' }, deps);
      const card = { headers: { authorization: `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}` } };
      expect((await hub.from('127.0.2.2', '/api/containers', card)).status).toBe(200);
      const owner = cookieHeader(
        sessionIdOf(await hub.login({ username: 'alice', password: PASSWORD }, '127.0.2.3')) as string,
      );
      for (let i = 0; i < USERNAME_FREE_FAILURES; i++) {
        await expectJsonError(await hub.login({ username: 'alice', password: `spread-${i}` }, `127.0.1.${i + 1}`), 401);
      }
      expect(clock.waits).toEqual([]);
      // The attacker's view, from an address that failed: 429 until the wait passes, one try, a longer wait.
      const retries: number[] = [];
      for (let round = 0; round < 4; round++) {
        const refused = await hub.login({ username: 'alice', password: `again-${round}` }, '127.0.1.1');
        const retryAfter = await expectSignInLimited(refused);
        retries.push(retryAfter);
        clock.at += retryAfter * 1000;
        await expectJsonError(await hub.login({ username: 'alice', password: `again-${round}` }, '127.0.1.1'), 401);
      }
      expect(retries).toEqual([1, 2, 4, 4]);
      // The owner's view: the right password from an address that has not failed signs in, no 429.
      const signedIn = await hub.login({ username: 'alice', password: PASSWORD }, '127.0.2.1');
      expect(signedIn.status).toBe(200);
      expect(clock.waits).toHaveLength(1);
      expect(clock.waits[0]).toBeLessThanOrEqual(USERNAME_MAX_DELAY_MS);
      // What the owner was already signed in to is never refused for someone else's failures:
      // the session, and the Home Assistant card's remembered Basic credential on /api/containers.
      expect((await hub.from('127.0.2.3', '/api/v1/containers', { headers: owner })).status).toBe(200);
      expect((await hub.from('127.0.2.2', '/api/containers', card)).status).toBe(200);
      // Other users are not slowed down at all.
      const bob = await hub.login({ username: 'bob', password: BOB_PASSWORD, otp: totp(clock.at) }, '127.0.1.2');
      expect(bob.status).toBe(200);
      expect(clock.waits).toHaveLength(1);
    });

    it('guesses key secrets until 429; then the right key is refused from that address, not from another', async () => {
      hub = await startAddressedHub(mode, USERS_ENV);
      const session = cookieHeader(
        sessionIdOf(await hub.login({ username: 'alice', password: PASSWORD }, BYSTANDER)) as string,
      );
      const created = await hub.from(
        BYSTANDER,
        '/api/v1/api-keys',
        jsonInit('POST', { name: 'target', scopes: ['read'] }, session),
      );
      const { apiKey, keyId } = (await created.json()) as { apiKey: string; keyId: string };
      const bearer = (credential: string) => ({ headers: { authorization: `Bearer ${credential}` } });
      // Right key id, wrong secrets: the strongest guess there is.
      for (let i = 0; i < FAILED_ATTEMPT_LIMIT; i++) {
        const guess = `ddk_${keyId}_${String(i).padStart(43, 'A')}`;
        const response = await hub.from(ATTACKER, '/api/v1/settings', bearer(guess));
        await expectJsonError(response, 401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      const blocked = await hub.from(ATTACKER, '/api/v1/settings', bearer(apiKey));
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      await expectJsonError(blocked, 429);
      expect((await hub.from(BYSTANDER, '/api/v1/settings', bearer(apiKey))).status).toBe(200);
      // The blocked address may still use a session: the block is on key attempts.
      expect((await hub.from(ATTACKER, '/api/v1/settings', { headers: session })).status).toBe(200);
    });
  });
}
