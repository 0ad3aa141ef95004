import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { deliverHttp } from './http-delivery';
import { boolean, httpUrl, integer, joinUrl, providerKeys, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = providerKeys({
  /** The server (a sub-path behind a reverse proxy is kept: `https://example.com/gotify`). */
  url: httpUrl(),
  /** An application token (Apps → Create Application). */
  token: text(),
  /** 0-10; the application's default priority when absent. */
  priority: v.optional(integer(0, 10)),
  /** Let the clients render the body as Markdown (`client::display` extra). */
  markdown: v.optional(boolean(), 'false'),
});
type GotifyConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_GOTIFY_<NAME>_*`: Gotify. Follows https://gotify.net/docs/pushmsg and the API
 * reference (`POST /message`, body `{title, message, priority, extras}`, the application token in
 * the `X-Gotify-Key` header rather than the `?token=` query, which would put it in access logs) and
 * https://gotify.net/docs/msgextras (`client::display.contentType`).
 */
export const gotifyProvider: NotificationProviderDefinition<GotifyConfig> = {
  type: 'gotify',
  keys: Keys,
  secretKeys: ['token'],
  create(config, name) {
    const target = { component: `gotify.${name}`, secrets: secretFragments([config.token]) };
    const url = joinUrl(config.url, '/message');
    const contentType = config.markdown ? 'text/markdown' : 'text/plain';
    return {
      secrets: target.secrets,
      async send(message, context) {
        await deliverHttp(context, target, {
          url,
          headers: { 'x-gotify-key': config.token },
          json: {
            title: message.title,
            message: message.body,
            ...(config.priority !== undefined && { priority: config.priority }),
            extras: { 'client::display': { contentType } },
          },
        });
      },
    };
  },
};
