import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { answerError, deliverHttp, isRetryableStatus } from './http-delivery';
import { choice, httpUrl, joinUrl, providerKeys, requireWith, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = v.pipe(
  providerKeys({
    /** The Apprise API server (`http://apprise:8000`). */
    url: httpUrl(),
    /** A configuration saved on the server under this key (`/notify/<key>`)… */
    key: v.optional(v.pipe(text(), v.regex(/^[\w-]{1,128}$/, 'must be letters, digits, _ or -'))),
    /** …or Apprise URLs sent with each message (stateless `/notify`); they hold credentials. */
    urls: v.optional(text()),
    /** With KEY: notify only the URLs of these tags (`,` = or, space = and). */
    tag: v.optional(text()),
    /** How the services show the message. */
    type: v.optional(choice(['info', 'success', 'warning', 'failure']), 'info'),
    /** What the body is written in. */
    format: v.optional(choice(['text', 'markdown', 'html']), 'text'),
  }),
  requireWith(
    'key',
    (c) => (c.key === undefined) !== (c.urls === undefined),
    'set KEY (a saved configuration) or URLS, one of them',
  ),
  requireWith('tag', (c) => c.tag === undefined || c.key !== undefined, 'applies to a saved configuration (KEY) only'),
);
type AppriseConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_APPRISE_<NAME>_*`: an Apprise API server, which fans the message out to the
 * services its URLs name. Follows the apprise-api README "API Details": `POST /notify/{KEY}` with
 * `{body, title, type, tag, format}` (persistent) or `POST /notify/` with `{urls, body, title,
 * type, format}` (stateless), JSON with `Content-Type: application/json`. Answers: 200 sent; 204
 * nothing to notify (no configuration for the key, or no URL with the tag: an error here, not
 * retried); 424 one or more services failed (retried, since the failing service may recover);
 * 400 a bad request.
 */
export const appriseProvider: NotificationProviderDefinition<AppriseConfig> = {
  type: 'apprise',
  keys: Keys,
  secretKeys: ['urls'],
  create(config, name) {
    const target = {
      component: `apprise.${name}`,
      secrets: secretFragments([config.urls, ...(config.urls?.split(/[\s,]+/) ?? [])]),
    };
    const url =
      config.key !== undefined ? joinUrl(config.url, `/notify/${config.key}`) : joinUrl(config.url, '/notify/');
    return {
      secrets: target.secrets,
      async send(message, context) {
        const answer = await deliverHttp(context, target, {
          url,
          headers: { accept: 'application/json' },
          json: {
            ...(config.urls !== undefined && { urls: config.urls }),
            title: message.title,
            body: message.body || message.title,
            type: config.type,
            format: config.format,
            ...(config.tag !== undefined && { tag: config.tag }),
          },
          // 424 Failed Dependency: Apprise reached its services and one of them failed; it may recover.
          isRetryable: (status) => status === 424 || isRetryableStatus(status),
        });
        if (answer.status === 204) {
          throw answerError(target, 204, 'nothing was notified: no configuration for the key, or no URL with the tag', {
            retryable: false,
          });
        }
      },
    };
  },
};
