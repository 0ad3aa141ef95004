import * as v from 'valibot';
import { notificationContainerView } from '../container-view';
import type { NotificationProviderDefinition } from '../notification-provider';
import { basicAuthorization, deliverHttp } from './http-delivery';
import { choice, httpUrl, providerKeys, requireWith, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Set by the trigger itself; a HEADERS entry could only break the request. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'transfer-encoding', 'connection']);

function parseHeaders(raw: string): Record<string, string> | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return 'must be a JSON object of header names to values, e.g. {"X-Api-Key":"…"}';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'must be a JSON object of header names to values';
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of Object.entries(value)) {
    if (!HEADER_NAME.test(name)) return `"${name.slice(0, 40)}" is not a valid header name`;
    if (RESERVED_HEADERS.has(name.toLowerCase())) return `${name} is set by the trigger and cannot be configured`;
    if (typeof headerValue !== 'string' || /[\r\n\0]/.test(headerValue))
      return `the value of ${name} must be a string on one line`;
    headers[name.toLowerCase()] = headerValue;
  }
  return headers;
}

const HeadersKey = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const parsed = parseHeaders(dataset.value);
    if (typeof parsed === 'string') {
      addIssue({ message: parsed });
      return NEVER;
    }
    return parsed;
  }),
);

const Keys = v.pipe(
  providerKeys({
    url: httpUrl(),
    /** POST (default) or PUT. */
    method: v.optional(choice(['post', 'put']), 'post'),
    /** Basic authentication. */
    user: v.optional(text()),
    password: v.optional(text()),
    /** `Authorization: Bearer <token>`. */
    bearer: v.optional(text()),
    /** Extra headers as a JSON object: `{"X-Api-Key":"…"}`. Every value is treated as a secret. */
    headers: v.optional(HeadersKey),
  }),
  requireWith(
    'password',
    (c) => (c.user === undefined) === (c.password === undefined),
    'USER and PASSWORD go together',
  ),
  requireWith('bearer', (c) => c.bearer === undefined || c.user === undefined, 'use BEARER or USER/PASSWORD, not both'),
  requireWith(
    'headers',
    (c) => c.headers?.['authorization'] === undefined || (c.bearer === undefined && c.user === undefined),
    'an Authorization header cannot be combined with BEARER or USER/PASSWORD',
  ),
);
type HttpConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_HTTP_<NAME>_*`: a webhook. Sends one JSON document per message:
 * `{event, kind, title, body, count, containers}`, where `containers` are the notification view
 * of the containers concerned (identity, image, update; never env or labels). `kind` is `simple`
 * (one container) or `batch`. Any 2xx is success; 5xx, 408, 429 and network failures are retried
 * by the outbox, other answers go to dead-letter at once.
 */
export const httpProvider: NotificationProviderDefinition<HttpConfig> = {
  type: 'http',
  keys: Keys,
  secretKeys: ['url', 'password', 'bearer', 'headers'],
  create(config, name) {
    const headers: Record<string, string> = { ...config.headers };
    if (config.bearer !== undefined) headers['authorization'] = `Bearer ${config.bearer}`;
    else if (config.user !== undefined && config.password !== undefined) {
      headers['authorization'] = basicAuthorization(config.user, config.password);
    }
    const secrets = secretFragments([
      config.password,
      config.bearer,
      ...Object.values(config.headers ?? {}),
      headers['authorization'],
      safeUrlPassword(config.url),
    ]);
    const target = { component: `http.${name}`, secrets };
    return {
      secrets,
      async send(message, context) {
        await deliverHttp(context, target, {
          url: config.url,
          method: config.method === 'put' ? 'PUT' : 'POST',
          headers,
          json: {
            event: message.event,
            kind: message.kind,
            title: message.title,
            body: message.body,
            count: message.containers.length,
            containers: message.containers.map(notificationContainerView),
          },
        });
      },
    };
  },
};

function safeUrlPassword(url: string): string | undefined {
  try {
    return new URL(url).password || undefined;
  } catch {
    return undefined;
  }
}
