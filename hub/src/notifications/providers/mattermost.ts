import * as v from 'valibot';
import { titled, truncate } from './message-text';
import { httpUrl, providerKeys, text } from './provider-keys';
import { webhookProvider } from './webhook-provider';

const Keys = providerKeys({
  /** The incoming webhook URL (`https://mattermost.example.com/hooks/<key>`): the key is the credential. */
  url: httpUrl(),
  /** Another channel than the webhook's (its name, `town-square`, or `@user` for a direct message). */
  channel: v.optional(text()),
  /** Shown as the sender (the server must allow overriding it). */
  username: v.optional(text()),
  /** The sender's picture (the server must allow overriding it). */
  iconurl: v.optional(httpUrl()),
});
type MattermostConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_MATTERMOST_<NAME>_*`: a Mattermost incoming webhook. Follows the developer docs
 * "Incoming webhooks" (POST JSON `{text, channel, username, icon_url}`, Markdown text, answer 200
 * `ok`; errors as JSON `{id, message, status_code}`); a post holds at most 16383 characters.
 */
export const mattermostProvider = webhookProvider<MattermostConfig>({
  type: 'mattermost',
  keys: Keys,
  request: (config, message) => ({
    json: {
      text: truncate(
        titled(message.title, message.body, (t) => `#### ${t}`),
        16_383,
      ),
      ...(config.channel !== undefined && { channel: config.channel }),
      ...(config.username !== undefined && { username: config.username }),
      ...(config.iconurl !== undefined && { icon_url: config.iconurl }),
    },
  }),
});
