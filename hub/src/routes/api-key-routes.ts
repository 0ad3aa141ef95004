import type { Context } from 'hono';
import * as v from 'valibot';
import {
  ApiKeySchema,
  type CreateApiKeyBody,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  RevokedApiKeysSchema,
  type StoredApiKey,
} from '../../../shared/schemas/api-key';
import { scopeSatisfies } from '../../../shared/scopes';
import { parseIsoInstant } from '../../../shared/update/timestamp';
import { digestSecret, formatCredential, generateKeyId, generateSecret } from '../auth/api-key-credential';
import type { Principal } from '../auth/principal';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { qInt, qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { ApiKeyStore } from '../store/api-key-store';
import type { AuditStore } from '../store/audit-store';

export const API_KEY_REVOKE_CONFIRM = 'api-key-revoke';

const creatorOf = (principal: Principal): string => {
  if (principal.kind === 'api-key') return `api-key:${principal.keyId}`;
  return `user:${principal.kind === 'session' ? principal.username : 'anonymous'}`;
};

/**
 * The ceilings of http-interface §5.6: a key mints only within its own scopes and lifetime. A session is not
 * bound by them, except one signed in with a recovery code, which cannot mint at all (http-interface §5.5).
 */
function assertMayCreate(
  principal: Principal,
  creator: StoredApiKey | undefined,
  body: CreateApiKeyBody,
  expiresAt: number | null,
): void {
  if (principal.kind === 'session' && principal.assurance === 'recovery-code') {
    throw new HttpError(403, 'A session signed in with a recovery code cannot create API keys', {
      reason: 'recovery-assurance',
    });
  }
  if (principal.kind !== 'api-key') return;
  if (!creator) throw new HttpError(403, 'The calling API key no longer exists');
  const beyond = body.scopes.filter((scope) => !scopeSatisfies(creator.scopes, scope));
  if (beyond.length > 0) {
    throw new HttpError(403, `An API key cannot grant scopes it does not hold: ${beyond.join(', ')}`, {
      scopes: beyond,
    });
  }
  const ceiling = creator.expiresAt === null ? null : Date.parse(creator.expiresAt);
  if (ceiling !== null && (expiresAt === null || expiresAt > ceiling)) {
    throw new HttpError(
      403,
      `An API key cannot create a key that outlives itself (expiry at most ${creator.expiresAt})`,
      {
        maxExpiresAt: creator.expiresAt,
      },
    );
  }
}

/** The API key routes: the key store, the clock, and the audit trail of creations and revocations. */
export interface ApiKeyRoutesDeps {
  apiKeys: Pick<ApiKeyStore, 'get' | 'create' | 'page' | 'descendants' | 'revoke' | 'toResource'>;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
}

/** The three key routes of http-interface §4.2; each needs api-keys:manage, held outright. */
export function registerApiKeyRoutes(api: RouteGroup, deps: ApiKeyRoutesDeps): void {
  const { apiKeys, now, audit } = deps;

  api.add(
    {
      method: 'post',
      path: '/api-keys',
      access: 'api-keys:manage',
      tag: 'api-keys',
      summary: 'Create an API key; the credential is shown in this answer only',
      body: CreateApiKeyBodySchema,
      response: CreatedApiKeySchema,
      successStatus: 201,
      statuses: {
        400: 'Unknown scope, missing name or invalid expiry',
        403: 'Beyond the caller key scope or expiry, or a recovery-code session',
      },
    },
    async (c: Context<HubEnv>, { body }) => {
      const principal = c.get('principal');
      const at = now();
      const expiresAt = body.expiresAt == null ? null : (parseIsoInstant(body.expiresAt) as number);
      if (expiresAt !== null && expiresAt <= at)
        throw new HttpError(400, 'expiresAt must lie in the future', { expiresAt: body.expiresAt });
      const creator = principal.kind === 'api-key' ? apiKeys.get(principal.keyId) : undefined;
      assertMayCreate(principal, creator, body, expiresAt);

      let keyId = generateKeyId();
      while (apiKeys.get(keyId)) keyId = generateKeyId();
      const secret = generateSecret();
      const record: StoredApiKey = {
        keyId,
        name: body.name,
        scopes: body.scopes,
        digest: digestSecret(secret),
        createdAt: new Date(at).toISOString(),
        createdBy: creatorOf(principal),
        parentKeyId: principal.kind === 'api-key' ? principal.keyId : null,
        expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
        lastUsedAt: null,
        revokedAt: null,
        ...(body.rateLimitMax !== undefined && { rateLimitMax: body.rateLimitMax }),
      };
      const stored = await apiKeys.create(record);
      await audit.append({
        action: 'api-key-created',
        status: 'success',
        details: `API key ${keyId} (${record.name}) created by ${record.createdBy} with scopes ${record.scopes.join(', ')}`,
      });
      return c.json({ ...apiKeys.toResource(stored), apiKey: formatCredential(keyId, secret) }, 201);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/api-keys',
      access: 'api-keys:manage',
      tag: 'api-keys',
      summary: 'API keys, newest first, paged by cursor; no key material',
      query: {
        limit: qInt({ min: 1, max: 200, default: 50 }),
        cursor: qText({ maxLength: 256, description: 'nextCursor of the previous page, exactly as given' }),
      },
      response: v.object({
        data: v.array(ApiKeySchema),
        total: v.number(),
        limit: v.number(),
        hasMore: v.boolean(),
        nextCursor: v.optional(v.string()),
      }),
      statuses: { 400: 'Invalid limit or cursor' },
    },
    (c, { query }) => {
      const page = apiKeys.page(query.limit, query.cursor);
      if (!page)
        throw new HttpError(400, 'Invalid query parameter "cursor": not a cursor this server issued', {
          parameter: 'cursor',
        });
      const { data, total, hasMore, nextCursor } = page;
      return c.json({ data, total, limit: query.limit, hasMore, ...(nextCursor !== undefined && { nextCursor }) });
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/api-keys/:keyId',
      access: 'api-keys:manage',
      tag: 'api-keys',
      summary: 'Revoke an API key and every key it minted, transitively',
      confirm: API_KEY_REVOKE_CONFIRM,
      response: RevokedApiKeysSchema,
      statuses: { 403: 'The caller lacks the scope, or revokes itself or its parent', 404: 'Unknown key' },
    },
    async (c) => {
      const keyId = c.req.param('keyId') as string;
      const target = apiKeys.get(keyId);
      if (!target) throw new HttpError(404, 'No API key with this id', { keyId: keyId.slice(0, 64) });
      const principal = c.get('principal');
      if (principal.kind === 'api-key') {
        // Revoking itself or its parent would cut off the caller mid-request; another key or a session must do it.
        if (keyId === principal.keyId) throw new HttpError(403, 'An API key cannot revoke itself');
        if (keyId === apiKeys.get(principal.keyId)?.parentKeyId)
          throw new HttpError(403, 'An API key cannot revoke its parent key');
      }
      const revokedKeyIds = apiKeys.descendants(keyId);
      await apiKeys.revoke(revokedKeyIds);
      await audit.append({
        action: 'api-key-revoked',
        status: 'success',
        details: `API key ${keyId} revoked by ${creatorOf(principal)}; cascade: ${revokedKeyIds.slice(1).join(', ') || 'none'}`,
      });
      return c.json({ keyId, revokedKeyIds, cascadeCount: revokedKeyIds.length - 1 });
    },
  );
}
