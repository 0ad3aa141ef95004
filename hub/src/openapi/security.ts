import type { RouteSpec } from '../http/route-table';

type SecurityRequirement = Record<string, string[]>;

/**
 * Every credential the hub accepts, as OpenAPI security schemes: the two a caller of the API uses
 * (http-interface §5.1, §5.2) and those of single routes (§5.8 to §5.10).
 */
export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Scoped API key, `Authorization: Bearer ddk_<keyId>_<secret>`; the scope a route needs is its x-required-scope',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'dd.sid',
    description: 'Session cookie from POST /api/v1/auth/login or an OpenID Connect sign-in',
  },
  webhookToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Action webhook token: DD_SERVER_WEBHOOK_TOKEN, or the endpoint’s own DD_SERVER_WEBHOOK_TOKENS_WATCHALL, _WATCH or _UPDATE',
  },
  registrySignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-hub-signature-256',
    description:
      'HMAC-SHA256 of the exact body with DD_SERVER_WEBHOOK_SECRET, 64 hex characters or sha256=<hex>, in any one of x-drydock-signature, x-hub-signature-256, x-quay-signature, x-harbor-signature, x-ms-signature, x-registry-signature',
  },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'DD_SERVER_METRICS_TOKEN' },
} as const;

/**
 * Who may call a route. A public route says so with an empty list (the edge endpoint too: agents
 * sign in inside the socket); any other accepts a session or, unless session-only, a key holding
 * its scope; a credential of the route's own comes first.
 */
export function securityOf(spec: RouteSpec): SecurityRequirement[] {
  const own: SecurityRequirement[] = spec.securityScheme ? [{ [spec.securityScheme]: [] }] : [];
  if (spec.access === 'public') return own;
  if (spec.access === 'session') return [...own, { session: [] }];
  return [...own, { session: [] }, { apiKey: [spec.access] }];
}
