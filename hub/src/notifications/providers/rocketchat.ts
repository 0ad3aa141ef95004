import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { answerError, deliverHttp } from './http-delivery';
import { titled } from './message-text';
import { httpUrl, joinUrl, providerKeys, requireWith, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = v.pipe(
  providerKeys({
    /**
     * An incoming webhook URL (`https://chat.example.com/hooks/<id>/<token>`), or, with USERID and
     * TOKEN, the server's base URL for the REST API.
     */
    url: httpUrl(),
    /** The REST API's user id (`X-User-Id`)… */
    userid: v.optional(text()),
    /** …and a personal access token of that user (`X-Auth-Token`). */
    token: v.optional(text()),
    /** `#channel`, `@user` or a room id; required with the REST API, an override for a webhook. */
    channel: v.optional(text()),
    /** Shown as the sender's name. */
    alias: v.optional(text()),
    /** Shown as the sender's avatar (`:ship:`). */
    emoji: v.optional(v.pipe(text(), v.regex(/^:[\w+-]+:$/, 'must be an emoji like :ship:'))),
  }),
  requireWith('token', (c) => (c.userid === undefined) === (c.token === undefined), 'USERID and TOKEN go together'),
  requireWith('channel', (c) => c.token === undefined || c.channel !== undefined, 'is required with USERID and TOKEN'),
);
type RocketChatConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_ROCKETCHAT_<NAME>_*`: Rocket.Chat, through an incoming webhook integration or the
 * REST API. Follows the docs "Integrations → Incoming webhook" (POST JSON `{text, alias, emoji,
 * channel}`, answer `{success: true}`) and the REST API "Post Message" (`POST /api/v1/chat.postMessage`
 * with `X-Auth-Token` and `X-User-Id` headers, `{channel, text, alias, emoji}`, answer
 * `{success, message}`, errors `{success: false, error}` with 400 and `{status: "error", message}`
 * with 401).
 */
export const rocketchatProvider: NotificationProviderDefinition<RocketChatConfig> = {
  type: 'rocketchat',
  keys: Keys,
  secretKeys: ['url', 'token'],
  create(config, name) {
    const rest =
      config.token !== undefined && config.userid !== undefined
        ? { 'x-auth-token': config.token, 'x-user-id': config.userid }
        : undefined;
    const target = {
      component: `rocketchat.${name}`,
      // The base URL of the REST API is no secret; a webhook's URL is.
      secrets: secretFragments(rest ? [config.token] : [config.url]),
    };
    const url = rest ? joinUrl(config.url, '/api/v1/chat.postMessage') : config.url;
    const headers: Record<string, string> = rest ?? {};
    return {
      secrets: target.secrets,
      async send(message, context) {
        const answer = await deliverHttp(context, target, {
          url,
          headers,
          json: {
            text: titled(message.title, message.body, (t) => `*${t}*`),
            ...(config.channel !== undefined && { channel: config.channel }),
            ...(config.alias !== undefined && { alias: config.alias }),
            ...(config.emoji !== undefined && { emoji: config.emoji }),
          },
        });
        if (!succeeded(answer.text)) throw answerError(target, answer.status, answer.text, { retryable: false });
      },
    };
  },
};

function succeeded(text: string): boolean {
  try {
    return (JSON.parse(text) as { success?: unknown }).success === true;
  } catch {
    return false;
  }
}
