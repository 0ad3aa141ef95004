/**
 * Guessing passwords and key secrets over HTTP until the limiters answer (http-interface §8, decisions §4, §5):
 * past the limit even the right credential gets 429 from that address (and, for passwords, for
 * that user), while other users and other addresses are unaffected.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAILED_ATTEMPT_LIMIT } from '../../hub/src/auth/api-key-auth';
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

    it('guesses a password until 429; then the right one is refused from that address and for that user, not for others', async () => {
      hub = await startAddressedHub(mode, USERS_ENV);
      const guesses = Array.from({ length: LOGIN_FAILURE_LIMIT }, (_, i) => `guess-${i}-${'x'.repeat(i)}`);
      for (const password of guesses) {
        const response = await hub.login({ username: 'alice', password }, ATTACKER);
        await expectJsonError(response, 401);
      }
      // The attacker keeps guessing: every answer is now 429, whatever the guess.
      await expectSignInLimited(await hub.login({ username: 'alice', password: 'one-more-guess' }, ATTACKER));
      await expectSignInLimited(await hub.login({ username: 'alice', password: PASSWORD }, ATTACKER));
      // The address is blocked for every user, the user from every address.
      await expectSignInLimited(
        await hub.login({ username: 'bob', password: BOB_PASSWORD, otp: totp(Date.now()) }, ATTACKER),
      );
      await expectSignInLimited(await hub.login({ username: 'alice', password: PASSWORD }, BYSTANDER));
      // Another user from another address signs in as usual.
      const bob = await hub.login({ username: 'bob', password: BOB_PASSWORD, otp: totp(Date.now()) }, BYSTANDER);
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

    it('stops a spread guess of one username from many addresses at the same limit', async () => {
      hub = await startAddressedHub(mode, USERS_ENV);
      for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) {
        await expectJsonError(await hub.login({ username: 'alice', password: `spread-${i}` }, `127.0.1.${i + 1}`), 401);
      }
      await expectSignInLimited(await hub.login({ username: 'alice', password: PASSWORD }, '127.0.2.1'));
      const bob = await hub.login({ username: 'bob', password: BOB_PASSWORD, otp: totp(Date.now()) }, '127.0.1.1');
      expect(bob.status).toBe(200);
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
