import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { deliverHttp } from './http-delivery';
import { escapeHtml, titled, truncate } from './message-text';
import { boolean, choice, httpUrl, joinUrl, providerKeys, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = providerKeys({
  /** The bot's token from @BotFather (`123456:ABC-…`). */
  bottoken: v.pipe(text(), v.regex(/^\d+:[\w-]+$/, 'must be a bot token, <digits>:<characters>')),
  /** A chat id (`123456789`, `-1001234567890`) or a public channel's `@username`. */
  chatid: v.pipe(text(), v.regex(/^(-?\d+|@\w{4,})$/, 'must be a numeric chat id or @channelusername')),
  /**
   * `html` (default): the title in bold and the text escaped, so any container name is safe.
   * `markdownv2` or `markdown`: the rendered templates are sent as they are, written for that mode.
   * `none`: plain text.
   */
  parsemode: v.optional(choice(['html', 'markdownv2', 'markdown', 'none']), 'html'),
  /** Deliver without a sound. */
  silent: v.optional(boolean(), 'false'),
  /** A local Bot API server instead of Telegram's. */
  url: v.optional(httpUrl(), 'https://api.telegram.org'),
});
type TelegramConfig = v.InferOutput<typeof Keys>;

const PARSE_MODES = { html: 'HTML', markdownv2: 'MarkdownV2', markdown: 'Markdown' } as const;
/** sendMessage takes 1-4096 characters of text (after entity parsing). */
const MAX_TEXT = 4096;

/**
 * `DD_NOTIFICATION_TELEGRAM_<NAME>_*`: a Telegram bot. Follows https://core.telegram.org/bots/api:
 * "Making requests" (`POST https://api.telegram.org/bot<token>/sendMessage`, JSON, answers
 * `{ok, result}` or `{ok: false, error_code, description, parameters.retry_after}`), "sendMessage"
 * (`chat_id, text, parse_mode, disable_notification, link_preview_options`) and "Formatting
 * options" (HTML mode: `<b>`, with `&`, `<`, `>` escaped).
 */
export const telegramProvider: NotificationProviderDefinition<TelegramConfig> = {
  type: 'telegram',
  keys: Keys,
  secretKeys: ['bottoken'],
  create(config, name) {
    const target = { component: `telegram.${name}`, secrets: secretFragments([config.bottoken]) };
    const url = joinUrl(config.url, `/bot${config.bottoken}/sendMessage`);
    return {
      secrets: target.secrets,
      async send(message, context) {
        const html = config.parsemode === 'html';
        const title = truncate(message.title, 256);
        const body = truncate(message.body, MAX_TEXT - Array.from(title).length - 1);
        const content = html ? titled(escapeHtml(title), escapeHtml(body), (t) => `<b>${t}</b>`) : titled(title, body);
        await deliverHttp(context, target, {
          url,
          json: {
            chat_id: config.chatid,
            text: content,
            ...(config.parsemode !== 'none' && { parse_mode: PARSE_MODES[config.parsemode] }),
            ...(config.silent && { disable_notification: true }),
            link_preview_options: { is_disabled: true },
          },
          retryAfterFromBody: (answer) => {
            const seconds = (answer as { parameters?: { retry_after?: unknown } } | null)?.parameters?.retry_after;
            return typeof seconds === 'number' ? seconds * 1000 : undefined;
          },
        });
      },
    };
  },
};
