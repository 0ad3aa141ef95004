import type { Context } from 'hono';
import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { type ActionWebhook, tokenFor, type WebhookTokens } from './webhook-config';

const BEARER = /^bearer +(\S.*)$/i;

/**
 * http-interface §5.8: `Authorization: Bearer <token>`, the endpoint's own token when the per-endpoint set
 * is configured, else the shared one. Compared in constant time; the token is never logged or
 * echoed. Sessions and API keys do not open these routes: a CI system holds the token, not a user.
 */
export async function checkWebhookToken(
  c: Context<HubEnv>,
  tokens: WebhookTokens,
  endpoint: ActionWebhook,
): Promise<void> {
  const expected = tokenFor(tokens, endpoint);
  if (expected === undefined) {
    throw new HttpError(
      500,
      'Action webhooks are enabled but no token is configured: set DD_SERVER_WEBHOOK_TOKEN or all three DD_SERVER_WEBHOOK_TOKENS_*',
    );
  }
  const presented = BEARER.exec(c.req.header('authorization')?.trim() ?? '')?.[1];
  if (presented === undefined) {
    throw new HttpError(401, 'A webhook token is required: Authorization: Bearer <token>', undefined, {
      'WWW-Authenticate': 'Bearer',
    });
  }
  if (!(await timingSafeEqualText(presented, expected))) {
    throw new HttpError(401, 'Invalid webhook token', undefined, {
      'WWW-Authenticate': 'Bearer error="invalid_token"',
    });
  }
}
