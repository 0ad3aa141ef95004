import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { basicAuthorization, deliverHttp } from './http-delivery';
import { boolean, choice, httpUrl, integer, joinUrl, providerKeys, requireWith, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = v.pipe(
  providerKeys({
    /** The server; ntfy's own by default. */
    url: v.optional(httpUrl(), 'https://ntfy.sh'),
    /** ntfy topic names: letters, digits, `_` and `-`, at most 64. */
    topic: v.pipe(text(), v.regex(/^[-_A-Za-z0-9]{1,64}$/, 'must be 1-64 letters, digits, _ or -')),
    /** 1 (min) to 5 (max); the server's default (3) when absent. */
    priority: v.optional(integer(1, 5)),
    /** Comma-separated tags; ones that name an emoji show as that emoji. */
    tags: v.optional(text()),
    /** The body is Markdown (rendered by the web app and the Android app). */
    markdown: v.optional(boolean(), 'false'),
    /** An access token (`tk_…`), sent as a bearer token. */
    token: v.optional(text()),
    user: v.optional(text()),
    password: v.optional(text()),
    /** `no`: the server does not keep the message for subscribers that connect later. */
    cache: v.optional(choice(['yes', 'no']), 'yes'),
  }),
  requireWith(
    'password',
    (c) => (c.user === undefined) === (c.password === undefined),
    'USER and PASSWORD go together',
  ),
  requireWith('token', (c) => c.token === undefined || c.user === undefined, 'use TOKEN or USER/PASSWORD, not both'),
);
type NtfyConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_NTFY_<NAME>_*`: ntfy. Follows https://docs.ntfy.sh/publish/ "Publish as JSON":
 * `POST` to the server root with `{topic, message, title, priority, tags, markdown}` (JSON rather
 * than the `Title:` header form, because header values must be ASCII and titles are not), and
 * "Authentication": `Authorization: Bearer <token>` or Basic. `Cache: no` is the documented header.
 * The topic is listed as a secret: on a public server, knowing it is enough to read the messages.
 */
export const ntfyProvider: NotificationProviderDefinition<NtfyConfig> = {
  type: 'ntfy',
  keys: Keys,
  secretKeys: ['token', 'password', 'topic'],
  create(config, name) {
    const target = {
      component: `ntfy.${name}`,
      secrets: secretFragments([config.token, config.password, config.topic]),
    };
    const headers: Record<string, string> = {};
    if (config.token !== undefined) headers.authorization = `Bearer ${config.token}`;
    else if (config.user !== undefined && config.password !== undefined) {
      headers.authorization = basicAuthorization(config.user, config.password);
    }
    if (config.cache === 'no') headers.cache = 'no';
    const tags = config.tags
      ?.split(',')
      .map((tag) => tag.trim())
      .filter(Boolean);
    return {
      secrets: target.secrets,
      async send(message, context) {
        await deliverHttp(context, target, {
          url: joinUrl(config.url, '/'),
          headers,
          json: {
            topic: config.topic,
            title: message.title,
            message: message.body,
            ...(config.priority !== undefined && { priority: config.priority }),
            ...(tags?.length && { tags }),
            ...(config.markdown && { markdown: true }),
          },
        });
      },
    };
  },
};
