import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { deliverHttp } from './http-delivery';
import { truncate } from './message-text';
import { integer, providerKeys, requireWith, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const PUSHOVER_KEY = /^[A-Za-z0-9]{30}$/;

const Keys = v.pipe(
  providerKeys({
    /** The application's API token. */
    token: v.pipe(text(), v.regex(PUSHOVER_KEY, 'must be a 30-character Pushover application token')),
    /** The user or group key. */
    user: v.pipe(text(), v.regex(PUSHOVER_KEY, 'must be a 30-character Pushover user or group key')),
    /** Device names (comma-separated); all of the user's devices when absent. */
    device: v.optional(
      v.pipe(text(), v.regex(/^[\w-]{1,25}(,[\w-]{1,25})*$/, 'must be device names, comma-separated')),
    ),
    /** -2 (no alert) to 2 (emergency: repeated until acknowledged). */
    priority: v.optional(integer(-2, 2)),
    /** Emergency priority only: seconds between repeats (at least 30)… */
    retry: v.optional(integer(30, 10_800), '60'),
    /** …and for how long (at most 10800 s). */
    expire: v.optional(integer(30, 10_800), '3600'),
    /** One of the sounds of the API's sound list. */
    sound: v.optional(v.pipe(text(), v.regex(/^[\w-]{1,32}$/, 'must be a sound name'))),
  }),
  requireWith('expire', (c) => c.expire >= c.retry, 'must not be shorter than RETRY'),
);
type PushoverConfig = v.InferOutput<typeof Keys>;

/** Where the API lives; a test points it at its fixture. */
export interface PushoverEndpoints {
  apiUrl?: string;
}

/**
 * `DD_NOTIFICATION_PUSHOVER_<NAME>_*`: Pushover. Follows https://pushover.net/api: `POST
 * /1/messages.json` form-encoded with `token, user, message` (≤1024 characters), `title` (≤250),
 * `device`, `priority`, `sound`, and for priority 2 `retry` + `expire`; success is 200
 * `{status: 1, request}`, a refused message 4xx `{status: 0, errors: [...]}`, 429 over the monthly
 * limit, 5xx to be retried (no sooner than 5 s).
 */
export function createPushoverProvider(
  endpoints: PushoverEndpoints = {},
): NotificationProviderDefinition<PushoverConfig> {
  const url = `${endpoints.apiUrl ?? 'https://api.pushover.net'}/1/messages.json`;
  return {
    type: 'pushover',
    keys: Keys,
    secretKeys: ['token', 'user'],
    create(config, name) {
      const target = { component: `pushover.${name}`, secrets: secretFragments([config.token, config.user]) };
      return {
        secrets: target.secrets,
        async send(message, context) {
          const form = new URLSearchParams({
            token: config.token,
            user: config.user,
            message: truncate(message.body || message.title, 1024),
          });
          if (message.title && message.body) form.set('title', truncate(message.title, 250));
          if (config.device !== undefined) form.set('device', config.device);
          if (config.sound !== undefined) form.set('sound', config.sound);
          if (config.priority !== undefined) form.set('priority', String(config.priority));
          if (config.priority === 2) {
            form.set('retry', String(config.retry));
            form.set('expire', String(config.expire));
          }
          await deliverHttp(context, target, { url, form });
        },
      };
    },
  };
}

export const pushoverProvider = createPushoverProvider();
