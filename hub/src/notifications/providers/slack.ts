import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { answerError, deliverHttp } from './http-delivery';
import { truncate } from './message-text';
import { httpUrl, providerKeys, requireWith, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = v.pipe(
  providerKeys({
    /** An incoming webhook URL (`https://hooks.slack.com/services/…`): it holds the secret. */
    url: v.optional(httpUrl()),
    /** Or a bot token (`xoxb-…`) with the `chat:write` scope… */
    token: v.optional(text()),
    /** …and the channel it posts to (an id like `C0123456789`, or `#name`). */
    channel: v.optional(text()),
  }),
  requireWith(
    'url',
    (c) => (c.url === undefined) !== (c.token === undefined),
    'set URL (a webhook) or TOKEN (a bot), one of them',
  ),
  requireWith('channel', (c) => c.token === undefined || c.channel !== undefined, 'is required with TOKEN'),
);
type SlackConfig = v.InferOutput<typeof Keys>;

/** Web API errors (answered with 200 and `ok: false`) that a later attempt may not meet again. */
const TRANSIENT_API_ERRORS = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** Where the Web API lives; a test points it at its fixture. */
export interface SlackEndpoints {
  apiUrl?: string;
}

/**
 * `DD_NOTIFICATION_SLACK_<NAME>_*`: Slack, through an incoming webhook or a bot token. Follows
 * https://api.slack.com/messaging/webhooks (POST JSON, answer `ok`, errors as plain-text codes with
 * 400/403/404/410/500), https://api.slack.com/methods/chat.postMessage (`Authorization: Bearer`,
 * `{channel, text, blocks}`, failures inside a 200 as `{ok: false, error}`, 429 with `Retry-After`)
 * and Block Kit (a `header` block of plain text, at most 150 characters; a `section` of mrkdwn, at
 * most 3000). `text` carries title and body as the notification fallback. Mrkdwn is escaped, so
 * templates are plain text here (Slack still links bare URLs).
 */
export function createSlackProvider(endpoints: SlackEndpoints = {}): NotificationProviderDefinition<SlackConfig> {
  const apiUrl = endpoints.apiUrl ?? 'https://slack.com/api';
  return {
    type: 'slack',
    keys: Keys,
    secretKeys: ['url', 'token'],
    create(config, name) {
      const target = { component: `slack.${name}`, secrets: secretFragments([config.url, config.token]) };
      return {
        secrets: target.secrets,
        async send(message, context) {
          const body = escapeMrkdwn(message.body);
          const blocks = [
            ...(message.title
              ? [{ type: 'header', text: { type: 'plain_text', text: truncate(message.title, 150), emoji: true } }]
              : []),
            ...(body ? [{ type: 'section', text: { type: 'mrkdwn', text: truncate(body, 3000) } }] : []),
          ];
          const fallback = [escapeMrkdwn(message.title), body].filter(Boolean).join('\n');
          if (config.url !== undefined) {
            await deliverHttp(context, target, { url: config.url, json: { text: fallback, blocks } });
            return;
          }
          const answer = await deliverHttp(context, target, {
            url: `${apiUrl}/chat.postMessage`,
            headers: { authorization: `Bearer ${config.token}` },
            json: { channel: config.channel, text: fallback, blocks },
          });
          const error = apiError(answer.text);
          if (error !== undefined) {
            throw answerError(target, answer.status, `error: ${error}`, { retryable: TRANSIENT_API_ERRORS.has(error) });
          }
        },
      };
    },
  };
}

export const slackProvider = createSlackProvider();

/**
 * "Formatting text for app surfaces → Escaping text": `&`, `<` and `>` must be sent as entities, or
 * `<!channel>` in a container's name would notify a whole channel and `<url|x>` would become a link.
 */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Web API's `error` of an `ok: false` answer; undefined for success. */
function apiError(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { ok?: unknown; error?: unknown };
    if (body.ok === true) return undefined;
    return typeof body.error === 'string' ? body.error : 'unknown_error';
  } catch {
    return 'unreadable answer';
  }
}
