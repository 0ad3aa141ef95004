/**
 * http-interface §5.4: every failed key credential gets one reply, the same status, body bytes and headers,
 * and is never retried against the session cookie. Regression: bearer-not-a-key. A Bearer value
 * not shaped like a key (`Bearer not-a-key`) was taken for no credential at all: the "sign in"
 * 401 without WWW-Authenticate when sign-in is configured, the cookie's principal when one was
 * sent, and anonymous access in anonymous mode.
 */
import { describe, expect, it } from 'vitest';
import { FAILED_ATTEMPT_LIMIT } from '../../hub/src/auth/api-key-auth';
import type { Environment } from '../../shared/config/env-source';
import { createMemoryHub, createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { cookieHeader, PASSWORD, sessionIdOf, USERS_ENV } from './auth-fixtures';

/** Headers that differ between any two replies (when, and which request). */
const PER_REQUEST_HEADERS = new Set(['date', 'x-request-id']);

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string>;
}

async function replyOf(response: Response): Promise<Reply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_REQUEST_HEADERS.has(name)) headers[name] = value;
  });
  return { status: response.status, body: await response.text(), headers };
}

/** A live session's cookie where sign-in is configured: a failed key must not fall back to it. */
async function sessionOf(hub: HubClient, env: Environment): Promise<Record<string, string>> {
  if (env !== USERS_ENV) return {};
  const login = await hub.request('/api/v1/auth/login', jsonInit('POST', { username: 'alice', password: PASSWORD }));
  return cookieHeader(sessionIdOf(login) as string);
}

const MODES = ['memory', 'server'] as const;
const SETUPS: readonly [string, Environment][] = [
  ['anonymous mode', {}],
  ['sign-in configured, with a live session cookie', USERS_ENV],
];

for (const mode of MODES) {
  for (const [setup, env] of SETUPS) {
    describe(`failed key credentials [${mode}, ${setup}]`, () => {
      it('all get one reply, malformed ones included, and all count against the failed-attempt limit', async () => {
        let clock = Date.parse('2026-03-01T12:00:00Z');
        const deps = { now: () => clock };
        const hub: HubClient = mode === 'memory' ? await createMemoryHub(env, deps) : await createServerHub(env, deps);
        try {
          const session = await sessionOf(hub, env);
          const create = async (body: Record<string, unknown>) => {
            const response = await hub.request(
              '/api/v1/api-keys',
              jsonInit('POST', { name: 'k', scopes: ['read'], ...body }, session),
            );
            expect(response.status).toBe(201);
            return (await response.json()) as { keyId: string; apiKey: string };
          };
          const good = await create({});
          const revoked = await create({});
          const revocation = await hub.request(`/api/v1/api-keys/${revoked.keyId}`, {
            method: 'DELETE',
            headers: { ...session, 'X-DD-Confirm-Action': 'api-key-revoke' },
          });
          expect(revocation.status).toBe(200);
          const expired = await create({ expiresAt: new Date(clock + 60_000).toISOString() });
          clock += 61_000;
          const secret = good.apiKey.slice(-43);

          const failures: Record<string, string> = {
            'not shaped like a key': 'not-a-key',
            'malformed key': 'ddk_not-a-key',
            'unknown key': `ddk_zzzzzzzzzzzz_${secret}`,
            'wrong secret': `ddk_${good.keyId}_${'A'.repeat(43)}`,
            revoked: revoked.apiKey,
            expired: expired.apiKey,
          };
          const replies: Record<string, Reply> = {};
          for (const [kind, credential] of Object.entries(failures)) {
            const headers = { ...session, authorization: `Bearer ${credential}` };
            replies[kind] = await replyOf(await hub.request('/api/v1/settings', { headers }));
          }
          const uniform = replies['unknown key'] as Reply;
          expect(uniform.status).toBe(401);
          expect(uniform.body).toBe('{"error":"Invalid API key"}');
          expect(uniform.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
          for (const [kind, reply] of Object.entries(replies)) expect(reply, kind).toEqual(uniform);

          // A route with a Bearer token of its own keeps it: /metrics is not refused as a key.
          expect(
            (await hub.request('/metrics', { headers: { ...session, authorization: 'Bearer not-a-key' } })).status,
          ).toBe(200);

          // Every failure above counted: the rest of the limit, then even the good key gets 429.
          const kinds = Object.keys(failures).length;
          for (let i = kinds; i < FAILED_ATTEMPT_LIMIT; i++) {
            const response = await hub.request('/api/v1/settings', { headers: { authorization: 'Bearer not-a-key' } });
            expect(response.status, `attempt ${i + 1}`).toBe(401);
          }
          const blocked = await hub.request('/api/v1/settings', {
            headers: { authorization: `Bearer ${good.apiKey}` },
          });
          expect(blocked.status).toBe(429);
          expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
        } finally {
          await hub.close();
        }
      });
    });
  }
}
