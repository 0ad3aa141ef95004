import { ConfigError } from '../../../shared/config/config-error';
import { type EnvReaderContext, envBoolean } from '../../../shared/config/env-readers';

/** The action webhook endpoints, each with its own token when the per-endpoint set is configured (http-interface §5.8). */
export const ACTION_WEBHOOKS = ['watchall', 'watch', 'update'] as const;
export type ActionWebhook = (typeof ACTION_WEBHOOKS)[number];

const TOKEN_VARIABLES: Readonly<Record<ActionWebhook, string>> = {
  watchall: 'DD_SERVER_WEBHOOK_TOKENS_WATCHALL',
  watch: 'DD_SERVER_WEBHOOK_TOKENS_WATCH',
  update: 'DD_SERVER_WEBHOOK_TOKENS_UPDATE',
};

/**
 * How action webhooks are authenticated: one shared token, one token per endpoint, or none
 * configured (then the action routes answer 500, as the registry route does without a secret).
 */
export type WebhookTokens =
  | { kind: 'none' }
  | { kind: 'shared'; token: string }
  | { kind: 'per-endpoint'; tokens: Readonly<Record<ActionWebhook, string>> };

/** DD_SERVER_WEBHOOK_* (http-interface §4.11, §5.8, §5.9). */
export interface WebhookConfig {
  /** DD_SERVER_WEBHOOK_ENABLED, default false: every webhook route answers 403 until it is true. */
  enabled: boolean;
  tokens: WebhookTokens;
  /** DD_SERVER_WEBHOOK_SECRET: the HMAC-SHA256 key of the registry webhook. */
  secret: string | undefined;
}

/**
 * Reads the webhook variables (their `__FILE` forms are resolved before). A partial set of
 * endpoint tokens stops start-up naming the missing ones: half a set would leave an endpoint
 * open to the shared token, or to nothing, without the operator noticing.
 */
export function loadWebhookConfig(vars: EnvReaderContext): WebhookConfig {
  const enabled = vars.get('DD_SERVER_WEBHOOK_ENABLED', envBoolean, false);
  const shared = vars.secret('DD_SERVER_WEBHOOK_TOKEN');
  const perEndpoint = ACTION_WEBHOOKS.map((endpoint) => [endpoint, vars.secret(TOKEN_VARIABLES[endpoint])] as const);
  const missing = perEndpoint.filter(([, token]) => token === undefined).map(([endpoint]) => TOKEN_VARIABLES[endpoint]);
  if (missing.length > 0 && missing.length < ACTION_WEBHOOKS.length) {
    throw new ConfigError(
      missing[0] as string,
      `the endpoint tokens go together: set all three DD_SERVER_WEBHOOK_TOKENS_* or none (missing: ${missing.join(', ')})`,
    );
  }
  let tokens: WebhookTokens = { kind: 'none' };
  if (missing.length === 0)
    tokens = { kind: 'per-endpoint', tokens: Object.fromEntries(perEndpoint) as Record<ActionWebhook, string> };
  else if (shared !== undefined) tokens = { kind: 'shared', token: shared };
  return { enabled, tokens, secret: vars.secret('DD_SERVER_WEBHOOK_SECRET') };
}

/** The token an endpoint requires; undefined when none is configured. */
export function tokenFor(tokens: WebhookTokens, endpoint: ActionWebhook): string | undefined {
  if (tokens.kind === 'per-endpoint') return tokens.tokens[endpoint];
  return tokens.kind === 'shared' ? tokens.token : undefined;
}

/** What GET /api/v1/server shows: which secrets are set, never their values. */
export function maskWebhookConfig(config: WebhookConfig): Record<string, unknown> {
  const masked = (value: string | undefined) => (value === undefined ? undefined : '***');
  return {
    enabled: config.enabled,
    tokens:
      config.tokens.kind === 'per-endpoint'
        ? { kind: 'per-endpoint', watchall: '***', watch: '***', update: '***' }
        : { kind: config.tokens.kind, ...(config.tokens.kind === 'shared' && { token: '***' }) },
    secret: masked(config.secret),
  };
}
