import type { Context } from 'hono';
import type { HubConfig } from '../config/hub-config';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { createRateLimiter } from '../http/rate-limit';
import { MAX_TRACKED_CLIENTS, REQUEST_LIMIT_WINDOW_MS, tooManyRequests } from '../http/server-rate-limit';

/** http-interface §8: per client address, per 15 minutes. */
export const ACTION_WEBHOOK_LIMIT = 30;
export const REGISTRY_WEBHOOK_LIMIT = 60;

/** Statuses every webhook route documents; a 429 of its own also exempts it from the server-wide limit. */
export const WEBHOOK_STATUSES = {
  403: 'Webhooks are disabled (DD_SERVER_WEBHOOK_ENABLED is not true)',
  429: 'Rate limit of the webhook family exceeded for this client address; Retry-After says when to come back',
} as const;

/** The webhook families' common gate: whether webhooks are on, and the per-address limit. */
export interface WebhookGuardDeps {
  config: Pick<HubConfig, 'webhooks'>;
  now: () => number;
  clientAddress: (c: Context) => string | undefined;
}

/**
 * The checks every webhook route makes before its own credential: webhooks enabled (else 403),
 * then the family's per-address limit (else 429 with Retry-After). Counted before the credential
 * is checked, so guessing a token or a signature is limited too.
 */
export function createWebhookGuard(deps: WebhookGuardDeps, family: 'action' | 'registry') {
  const limit = family === 'action' ? ACTION_WEBHOOK_LIMIT : REGISTRY_WEBHOOK_LIMIT;
  const limiter = createRateLimiter({
    limit,
    windowMs: REQUEST_LIMIT_WINDOW_MS,
    now: deps.now,
    maxKeys: MAX_TRACKED_CLIENTS,
  });
  const what = family === 'action' ? 'action webhook' : 'registry webhook';
  return function guard(c: Context<HubEnv>): void {
    if (!deps.config.webhooks.enabled) {
      throw new HttpError(403, 'Webhooks are disabled; set DD_SERVER_WEBHOOK_ENABLED=true to accept them');
    }
    const address = deps.clientAddress(c) ?? 'unknown';
    const decision = limiter.take(address);
    if (!decision.allowed)
      throw tooManyRequests(`At most ${limit} ${what} requests per 15 minutes from one address`, decision, limit);
  };
}
