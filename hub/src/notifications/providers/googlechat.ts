import type * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { deliverHttp } from './http-delivery';
import { titled, truncate } from './message-text';
import { httpUrl, providerKeys } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = providerKeys({
  /** The space's incoming webhook URL; its `key` and `token` query parameters are the credential. */
  url: httpUrl(),
});
type GoogleChatConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_GOOGLECHAT_<NAME>_*`: a Google Chat space. Follows "Send messages to Google Chat
 * with incoming webhooks" (POST the webhook URL, `Content-Type: application/json; charset=UTF-8`,
 * body `{text}`) and "Format text messages" (`*bold*`); the answer is the created message, errors are
 * `{error: {code, message, status}}` (429 RESOURCE_EXHAUSTED for the per-space rate limit).
 */
export const googlechatProvider: NotificationProviderDefinition<GoogleChatConfig> = {
  type: 'googlechat',
  keys: Keys,
  secretKeys: ['url'],
  create(config, name) {
    const target = { component: `googlechat.${name}`, secrets: secretFragments([config.url]) };
    return {
      secrets: target.secrets,
      async send(message, context) {
        await deliverHttp(context, target, {
          url: config.url,
          headers: { 'content-type': 'application/json; charset=UTF-8' },
          json: {
            text: truncate(
              titled(message.title, message.body, (t) => `*${t}*`),
              4096,
            ),
          },
        });
      },
    };
  },
};
