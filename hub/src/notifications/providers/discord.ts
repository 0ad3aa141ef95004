import * as v from 'valibot';
import type { NotificationRuleId } from '../../../../shared/schemas/notification-rule';
import { truncate } from './message-text';
import { httpUrl, providerKeys, text } from './provider-keys';
import { webhookProvider } from './webhook-provider';

const Keys = providerKeys({
  /** The webhook URL (`https://discord.com/api/webhooks/<id>/<token>`): it holds the token. */
  url: httpUrl(),
  /** Overrides the webhook's name. */
  username: v.optional(text()),
  /** Overrides the webhook's avatar. */
  avatarurl: v.optional(httpUrl()),
});
type DiscordConfig = v.InferOutput<typeof Keys>;

/** The embed's side bar: red for failures and alerts, green for applied updates, blurple otherwise. */
const COLORS: Partial<Record<NotificationRuleId, number>> = {
  'update-failed': 0xed4245,
  'security-alert': 0xed4245,
  'container-unhealthy': 0xed4245,
  'agent-disconnect': 0xfee75c,
  'update-applied': 0x57f287,
  'agent-reconnect': 0x57f287,
};
const DEFAULT_COLOR = 0x5865f2;

/**
 * `DD_NOTIFICATION_DISCORD_<NAME>_*`: a Discord channel webhook. Follows the developer docs
 * "Webhook → Execute Webhook" (`POST` the webhook URL, JSON `{username, avatar_url, embeds,
 * allowed_mentions}`, 204 without `?wait`), "Embed Limits" (title 256, description 4096 characters)
 * and "Rate Limits" (429 with `Retry-After` and a JSON `retry_after` in seconds).
 * `allowed_mentions: {parse: []}` keeps a container named `@everyone` from pinging anyone.
 */
export const discordProvider = webhookProvider<DiscordConfig>({
  type: 'discord',
  keys: Keys,
  request: (config, message) => ({
    json: {
      ...(config.username !== undefined && { username: config.username }),
      ...(config.avatarurl !== undefined && { avatar_url: config.avatarurl }),
      embeds: [
        {
          ...(message.title && { title: truncate(message.title, 256) }),
          ...(message.body && { description: truncate(message.body, 4096) }),
          color: COLORS[message.event] ?? DEFAULT_COLOR,
        },
      ],
      allowed_mentions: { parse: [] },
    },
    retryAfterFromBody: (body) => secondsField(body, 'retry_after'),
  }),
});

function secondsField(body: unknown, field: string): number | undefined {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return typeof value === 'number' ? value * 1000 : undefined;
}
