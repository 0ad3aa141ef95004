import * as v from 'valibot';
import { SCOPES } from '../scopes';
import { parseIsoInstant } from '../update/timestamp';

/** The credential's literal prefix (decisions §5): `ddk_<keyId>_<secret>`. */
export const KEY_PREFIX = 'ddk';
export const KEY_ID_PATTERN = /^[a-z0-9]{12}$/;
export const API_KEY_STATUSES = ['active', 'expired', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

const NAME_MAX = 100;
/** Far above the server-wide 1,000 per 15 minutes, so a key can be given more than the default, but bounded. */
export const RATE_LIMIT_MAX_CEILING = 1_000_000;

const IsoTimestampSchema = v.pipe(v.string(), v.isoTimestamp());
const ScopeListSchema = v.array(v.picklist(SCOPES));

/** What is stored per key: only the SHA-256 digest of the secret, never the secret itself. */
export const StoredApiKeySchema = v.object({
  keyId: v.pipe(v.string(), v.regex(KEY_ID_PATTERN)),
  name: v.string(),
  scopes: ScopeListSchema,
  digest: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  createdAt: IsoTimestampSchema,
  createdBy: v.string(),
  parentKeyId: v.nullable(v.string()),
  expiresAt: v.nullable(IsoTimestampSchema),
  lastUsedAt: v.nullable(IsoTimestampSchema),
  revokedAt: v.nullable(IsoTimestampSchema),
  rateLimitMax: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type StoredApiKey = v.InferOutput<typeof StoredApiKeySchema>;

/** The API resource (http-interface §2.1), as listed: the stored fields without the digest, plus what is derived. */
const { digest: _digest, ...publicEntries } = StoredApiKeySchema.entries;
export const ApiKeySchema = v.object({
  ...publicEntries,
  displayPrefix: v.string(),
  status: v.picklist(API_KEY_STATUSES),
});
export type ApiKey = v.InferOutput<typeof ApiKeySchema>;

/** The create answer: the resource plus the credential, shown this once only. */
export const CreatedApiKeySchema = v.object({ ...ApiKeySchema.entries, apiKey: v.string() });

/** POST /api/v1/api-keys (http-interface §4.2). Whether the expiry lies in the future is checked against the hub's clock. */
export const CreateApiKeyBodySchema = v.strictObject({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'name is required'),
    v.maxLength(NAME_MAX, `name must be at most ${NAME_MAX} characters`),
  ),
  scopes: v.pipe(
    v.array(v.picklist(SCOPES, (issue) => `unknown scope "${String(issue.input).slice(0, 64)}"`)),
    v.minLength(1, 'at least one scope is required'),
    v.maxLength(SCOPES.length * 2, 'too many scopes'),
    v.transform((scopes) => [...new Set(scopes)]),
  ),
  expiresAt: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.check((text) => parseIsoInstant(text) !== undefined, 'expiresAt must be an ISO 8601 date-time with a zone'),
      ),
    ),
  ),
  rateLimitMax: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(RATE_LIMIT_MAX_CEILING))),
});
export type CreateApiKeyBody = v.InferOutput<typeof CreateApiKeyBodySchema>;

export const RevokedApiKeysSchema = v.object({
  keyId: v.string(),
  revokedKeyIds: v.array(v.string()),
  cascadeCount: v.number(),
});
