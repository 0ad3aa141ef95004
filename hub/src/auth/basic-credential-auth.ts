import type { Context } from 'hono';
import { timingSafeEqualFixed } from '../../../shared/crypto/timing-safe-equal';
import type { Logger } from '../../../shared/logging/logger';
import { errorBody } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { createRateLimiter } from '../http/rate-limit';
import type { AuditStore } from '../store/audit-store';
import type { LoginVerifier } from './login-service';
import type { Principal } from './principal';
import type { SignInLimits } from './sign-in-limits';

/** How long a verified username and password skip the argon2id check: a card polls every 30 s. */
export const BASIC_VERIFIED_TTL_MS = 5 * 60_000;
const MAX_VERIFIED = 1_000;
/** At most one audit entry per client per minute for failed Basic credentials (a polling client retries forever). */
const AUDIT_FAILURE_WINDOW_MS = 60_000;
// The sign-in route's words: nothing tells a wrong user from a wrong password.
const FAILURE_MESSAGE = 'Invalid credentials';
const BASIC = /^basic +(.*)$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Decodes to nobody: a malformed credential fails like a wrong one. */
const MALFORMED = { username: '', password: '' };

export interface BasicCredentialAuthenticator {
  /**
   * The principal of an `Authorization: Basic` header, the answer that ends the request (401 or
   * 429), or undefined without one.
   */
  authenticate(c: Context<HubEnv>): Promise<Principal | Response | undefined>;
}

/** HTTP Basic for the compatibility routes: the basic users' verifier, the shared sign-in limits, where failures go. */
export interface BasicCredentialAuthDeps {
  verifier: LoginVerifier;
  signInLimits: SignInLimits;
  now: () => number;
  logger: Logger;
  audit: Pick<AuditStore, 'append'>;
  clientAddress: (c: Context) => string | undefined;
}

function tooMany(c: Context<HubEnv>, retryAfterSeconds: number): Response {
  c.header('Retry-After', String(retryAfterSeconds));
  return c.json(errorBody(429, 'Too many failed sign-in attempts', { retryAfterSeconds }), 429);
}

function decodeBasic(header: string | undefined): { username: string; password: string } | undefined {
  const encoded = header === undefined ? undefined : BASIC.exec(header.trim())?.[1]?.trim();
  if (encoded === undefined) return undefined;
  if (!BASE64.test(encoded)) return MALFORMED;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0)));
  } catch {
    return MALFORMED;
  }
  const colon = text.indexOf(':');
  if (colon < 0) return MALFORMED;
  return { username: text.slice(0, colon).trim(), password: text.slice(colon + 1) };
}

const toHex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * HTTP Basic for the What's Up Docker clients (the Home Assistant card, Homepage's widget), which
 * send a username and password with every request. A verified pair is remembered for a few minutes
 * as an HMAC under a key of this process's own, so a polling client costs one HMAC and a
 * constant-time compare per request instead of an argon2id verification (about 50 ms of CPU); the
 * password itself is never kept. Failures count against the sign-in limits, and a remembered pair is
 * not slowed down by other clients' failures with that username. A user with a second
 * factor cannot sign in this way: the verifier refuses a password alone.
 *
 * No `WWW-Authenticate: Basic` challenge is sent: a browser would prompt for a password and then
 * attach it to cross-site requests by itself.
 */
export function createBasicCredentialAuthenticator(deps: BasicCredentialAuthDeps): BasicCredentialAuthenticator {
  const { verifier, signInLimits, now, clientAddress } = deps;
  const logger = deps.logger.child('auth.basic');
  const auditedFailures = createRateLimiter({ limit: 1, windowMs: AUDIT_FAILURE_WINDOW_MS, now });
  const verified = new Map<string, { digest: string; at: number }>();
  /** Concurrent first requests of one client (the card asks for every container at once) share one verification. */
  const pending = new Map<string, Promise<boolean>>();
  let hmacKey: Promise<CryptoKey> | undefined;

  const digestOf = async (username: string, password: string): Promise<string> => {
    hmacKey ??= crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']) as Promise<CryptoKey>;
    const message = new TextEncoder().encode(`${username}\u0000${password}`);
    return toHex(await crypto.subtle.sign('HMAC', await hmacKey, message));
  };

  /** Whether this exact pair was verified a short while ago (then no argon2id verification). */
  function remembered(username: string, digest: string): boolean {
    const cached = verified.get(username);
    return (
      cached !== undefined && now() - cached.at < BASIC_VERIFIED_TTL_MS && timingSafeEqualFixed(cached.digest, digest)
    );
  }

  async function verify(username: string, password: string, digest: string): Promise<boolean> {
    let turn = pending.get(digest);
    if (!turn) {
      turn = verifier
        .verify({ username, password })
        .then((assurance) => assurance === 'password')
        .finally(() => pending.delete(digest));
      pending.set(digest, turn);
    }
    const ok = await turn;
    if (ok) {
      if (verified.size >= MAX_VERIFIED) verified.clear();
      verified.set(username, { digest, at: now() });
    }
    return ok;
  }

  async function fail(c: Context<HubEnv>, address: string, username: string): Promise<Response> {
    signInLimits.recordFailure(address, username);
    if (auditedFailures.take(address).allowed) {
      const details = `Basic authentication failed for "${username.slice(0, 100)}" from ${address}`;
      await deps.audit.append({ action: 'auth-login', status: 'failed', details });
      logger.warn('Basic authentication failed', { username: username.slice(0, 100), address });
    }
    return c.json(errorBody(401, FAILURE_MESSAGE), 401);
  }

  return {
    async authenticate(c) {
      const credential = decodeBasic(c.req.header('authorization'));
      if (!credential) return undefined;
      const { username, password } = credential;
      const address = clientAddress(c) ?? 'unknown';
      // Checked before the cache too: otherwise a blocked address could still tell a right guess from a wrong one.
      const blocked = signInLimits.addressBlocked(address);
      if (blocked) return tooMany(c, blocked.retryAfterSeconds);
      if (username === '' || password === '') return fail(c, address, username);
      const digest = await digestOf(username, password);
      const known = remembered(username, digest);
      // A client that signed in keeps working, unslowed, whatever others try with its username. An
      // address that has failed meets the username's wait all the same: a 429 for each wrong guess
      // and a 200 for the remembered one would tell them apart without a try being counted.
      if (!known || signInLimits.hasFailed(address)) {
        const refused = await signInLimits.admit(address, username);
        if (refused) return tooMany(c, refused.retryAfterSeconds);
        if (!known && !(await verify(username, password, digest))) return fail(c, address, username);
      }
      return { kind: 'session', username, assurance: 'password' };
    },
  };
}
