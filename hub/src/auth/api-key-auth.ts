import type { Context } from 'hono';
import { timingSafeEqualFixed } from '../../../shared/crypto/timing-safe-equal';
import type { Logger } from '../../../shared/logging/logger';
import { KEY_PREFIX } from '../../../shared/schemas/api-key';
import { errorBody } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { createRateLimiter } from '../http/rate-limit';
import type { RouteTable } from '../http/route-table';
import type { ApiKeyStore } from '../store/api-key-store';
import type { AuditStore } from '../store/audit-store';
import { digestSecret, looksLikeApiKey, parseCredential } from './api-key-credential';
import type { Principal } from './principal';

const WINDOW_MS = 15 * 60_000;
// A runtime that cannot name the caller puts every caller in one bucket (as the UI stream limit does).
const UNKNOWN_CLIENT_ADDRESS = 'unknown';
/** Server-wide ceiling of decisions §5, per key id, when a key sets no rateLimitMax of its own. */
export const DEFAULT_KEY_REQUEST_LIMIT = 1_000;
/** Failed key attempts per client address before every key attempt from it gets 429: slows guessing. */
export const FAILED_ATTEMPT_LIMIT = 30;
const VERIFIED_TTL_MS = 5 * 60_000;
const MAX_VERIFIED = 10_000;
const UNKNOWN_KEY_DIGEST = '0'.repeat(64);

/** At most one api-key-auth-failed audit entry per client per minute, so a brute force cannot flood the trail. */
const AUDIT_FAILURE_WINDOW_MS = 60_000;
// One body for every failure (http-interface §5.4): nothing tells an unknown key from a wrong secret or a revoked one.
const FAILURE_MESSAGE = 'Invalid API key';

type FailureReason = 'malformed' | 'unknown-key' | 'wrong-secret' | 'revoked' | 'expired';

export interface ApiKeyAuthenticator {
  /**
   * The principal for a request carrying `Authorization: Bearer <value>`, or the answer that ends it
   * (401 or 429). Undefined without a Bearer value, and for one not shaped like a key on a route
   * that knows its callers by a credential of its own (metrics, webhooks).
   */
  authenticate(c: Context<HubEnv>): Promise<Principal | Response | undefined>;
}

const BEARER = /^bearer +(.+)$/i;
const USUAL_SCHEME = 'Bearer ';
const USUAL_KEY_HEADER = `${USUAL_SCHEME}${KEY_PREFIX}_`;

function bearerValue(c: Context<HubEnv>): string | undefined {
  const header = c.req.header('authorization');
  if (header === undefined) return undefined;
  // The spelling every client sends, read without the regex; the same value the regex would give.
  if (header.startsWith(USUAL_KEY_HEADER) && header.trim().length === header.length)
    return header.slice(USUAL_SCHEME.length);
  return BEARER.exec(header.trim())?.[1];
}

/** API key authentication (http-interface §5.4): the keys, the routes (some read their own tokens), and where failures go. */
export interface ApiKeyAuthenticatorDeps {
  apiKeys: Pick<ApiKeyStore, 'get' | 'statusOf' | 'touch'>;
  routes: Pick<RouteTable, 'routes'>;
  now: () => number;
  logger: Logger;
  audit: Pick<AuditStore, 'append'>;
  clientAddress: (c: Context) => string | undefined;
}

export function createApiKeyAuthenticator(deps: ApiKeyAuthenticatorDeps): ApiKeyAuthenticator {
  const { apiKeys, now, clientAddress, routes } = deps;
  const hasOwnCredential = (path: string): boolean =>
    routes.routes.some((route) => route.spec.ownCredential === true && route.matcher.test(path));
  const logger = deps.logger.child('auth.api-key');
  const requests = createRateLimiter({ limit: DEFAULT_KEY_REQUEST_LIMIT, windowMs: WINDOW_MS, now });
  const failures = createRateLimiter({ limit: FAILED_ATTEMPT_LIMIT, windowMs: WINDOW_MS, now });
  const auditedFailures = createRateLimiter({ limit: 1, windowMs: AUDIT_FAILURE_WINDOW_MS, now });

  const tooMany = (c: Context<HubEnv>, retryAfterSeconds: number, message: string) => {
    c.header('Retry-After', String(retryAfterSeconds));
    return c.json(errorBody(429, message, { retryAfterSeconds }), 429);
  };

  async function fail(
    c: Context<HubEnv>,
    address: string,
    reason: FailureReason,
    keyId: string | undefined,
  ): Promise<Response> {
    const counted = failures.take(address);
    if (auditedFailures.take(address).allowed) {
      // Never the credential: the key id (when it parsed) and why, for whoever reads the trail.
      const details = `API key authentication failed (${reason})${keyId ? ` for key ${keyId}` : ''} from ${address}`;
      await deps.audit.append({ action: 'api-key-auth-failed', status: 'failed', details });
      logger.warn('API key authentication failed', { reason, keyId, address });
    }
    if (!counted.allowed) return tooMany(c, counted.retryAfterSeconds, 'Too many failed API key attempts');
    c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    return c.json(errorBody(401, FAILURE_MESSAGE), 401);
  }

  // A key's secret verified within the last few minutes, so a dashboard polling with one key costs a
  // constant-time compare per request instead of a SHA-256 (the bench's key/anonymous ratio rose from
  // 0.65 to above 0.9). Status and revocation are still read from the record on every request.
  const recentlyVerified = new Map<string, { secret: string; at: number }>();
  const verify = (keyId: string, secret: string, storedDigest: string | undefined, at: number): boolean => {
    const cached = recentlyVerified.get(keyId);
    if (
      storedDigest !== undefined &&
      cached &&
      at - cached.at < VERIFIED_TTL_MS &&
      timingSafeEqualFixed(cached.secret, secret)
    )
      return true;
    // An unknown key is digested and compared all the same, so its answer takes as long as a wrong secret's.
    const matches = timingSafeEqualFixed(digestSecret(secret), storedDigest ?? UNKNOWN_KEY_DIGEST);
    if (matches) {
      if (recentlyVerified.size >= MAX_VERIFIED) recentlyVerified.clear();
      recentlyVerified.set(keyId, { secret, at });
    }
    return matches;
  };

  return {
    async authenticate(c) {
      const value = bearerValue(c);
      if (value === undefined) return undefined;
      // Anywhere else a Bearer value is a key credential, so one of another shape is a malformed key and
      // gets the same reply as every other failure (http-interface §5.4), not the "no credential" one.
      if (!looksLikeApiKey(value) && hasOwnCredential(c.req.path)) return undefined;
      const address = clientAddress(c) ?? UNKNOWN_CLIENT_ADDRESS;
      // Checked before the key: answering a blocked address 401 or 200 would still tell a guess right from wrong.
      const blocked = failures.peek(address);
      if (!blocked.allowed) return tooMany(c, blocked.retryAfterSeconds, 'Too many failed API key attempts');

      const credential = parseCredential(value);
      if (!credential) return fail(c, address, 'malformed', undefined);
      // One clock reading for the checks of this request (each costs about 50 ns on a VM).
      const at = now();
      const record = apiKeys.get(credential.keyId);
      const matches = verify(credential.keyId, credential.secret, record?.digest, at);
      if (!record) return fail(c, address, 'unknown-key', credential.keyId);
      if (!matches) return fail(c, address, 'wrong-secret', credential.keyId);
      // Read from the record on every request, so a revocation or an expiry applies at once.
      const status = apiKeys.statusOf(record, at);
      if (status !== 'active') return fail(c, address, status, credential.keyId);

      const limit = requests.take(record.keyId, record.rateLimitMax ?? DEFAULT_KEY_REQUEST_LIMIT);
      if (!limit.allowed) return tooMany(c, limit.retryAfterSeconds, 'This API key exceeded its request limit');
      apiKeys.touch(record.keyId, at);
      return { kind: 'api-key', keyId: record.keyId, scopes: record.scopes };
    },
  };
}
