import type * as v from 'valibot';
import { titled, truncate } from './message-text';
import { httpUrl, providerKeys } from './provider-keys';
import { webhookProvider } from './webhook-provider';

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
export const googlechatProvider = webhookProvider<GoogleChatConfig>({
  type: 'googlechat',
  keys: Keys,
  request: (_config, message) => ({
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    json: {
      text: truncate(
        titled(message.title, message.body, (t) => `*${t}*`),
        4096,
      ),
    },
  }),
});
