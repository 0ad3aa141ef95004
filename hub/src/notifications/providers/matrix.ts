import * as v from 'valibot';
import type { NotificationProviderDefinition } from '../notification-provider';
import { deliverHttp } from './http-delivery';
import { escapeHtml } from './message-text';
import { choice, httpUrl, joinUrl, providerKeys, text } from './provider-keys';
import { secretFragments } from './secret-fragments';

const Keys = providerKeys({
  /** The homeserver's client API base (`https://matrix.example.org`). */
  url: httpUrl(),
  /** An access token of the account that posts (it must have joined the room). */
  token: text(),
  /** The room id (`!abc123:example.org`, from the room's advanced settings), not an alias. */
  roomid: v.pipe(text(), v.regex(/^![^\s/]+$/, 'must be a room id starting with ! (not a #alias)')),
  /** `notice` (default): shown as from a bot, and ignored by other bots. */
  msgtype: v.optional(choice(['notice', 'text']), 'notice'),
});
type MatrixConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_MATRIX_<NAME>_*`: a Matrix room. Follows the Client-Server API v1.x:
 * `PUT /_matrix/client/v3/rooms/{roomId}/send/m.room.message/{txnId}` with `Authorization: Bearer`,
 * an `m.room.message` of msgtype `m.notice` or `m.text` with `body` and the HTML
 * `format: org.matrix.custom.html` + `formatted_body`; answers `{event_id}`, or `{errcode, error}`
 * (429 `M_LIMIT_EXCEEDED` with `retry_after_ms`). Each send gets a fresh transaction id.
 */
export const matrixProvider: NotificationProviderDefinition<MatrixConfig> = {
  type: 'matrix',
  keys: Keys,
  secretKeys: ['token'],
  create(config, name) {
    const target = { component: `matrix.${name}`, secrets: secretFragments([config.token]) };
    const base = joinUrl(
      config.url,
      `/_matrix/client/v3/rooms/${encodeURIComponent(config.roomid)}/send/m.room.message/`,
    );
    return {
      secrets: target.secrets,
      async send(message, context) {
        const plain = [message.title, message.body].filter(Boolean).join('\n');
        const html = [
          ...(message.title ? [`<strong>${escapeHtml(message.title)}</strong>`] : []),
          ...(message.body ? [escapeHtml(message.body).replace(/\n/g, '<br>')] : []),
        ].join('<br>');
        await deliverHttp(context, target, {
          url: `${base}${encodeURIComponent(`dockwatch-${crypto.randomUUID()}`)}`,
          method: 'PUT',
          headers: { authorization: `Bearer ${config.token}` },
          json: { msgtype: `m.${config.msgtype}`, body: plain, format: 'org.matrix.custom.html', formatted_body: html },
          retryAfterFromBody: (answer) => {
            const ms = (answer as { retry_after_ms?: unknown } | null)?.retry_after_ms;
            return typeof ms === 'number' ? ms : undefined;
          },
        });
      },
    };
  },
};
