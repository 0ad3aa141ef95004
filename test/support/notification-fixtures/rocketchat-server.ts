import { type FixtureServer, startFixtureServer } from './fixture-server';

export interface RocketChatFixtureOptions {
  /** The incoming webhook integration's id and token (`/hooks/{id}/{token}`). */
  hook: { id: string; token: string };
  /** A REST API user and its personal access token. */
  user: { id: string; token: string };
  /** Channels that exist (`#name`, `@user` or a room id). */
  channels: string[];
}

/**
 * Rocket.Chat's two ways in. An incoming webhook integration: `POST /hooks/{id}/{token}` with JSON
 * `{text, alias?, emoji?, channel?}`, answer `{success: true}`; an unknown integration 404
 * `{success: false, error: "Invalid integration id or token provided."}`. The REST API's
 * `POST /api/v1/chat.postMessage` with `X-Auth-Token` + `X-User-Id`: answer `{ts, channel,
 * message, success: true}`; without valid credentials 401 `{status: "error", message: "You must
 * be logged in to do this."}`; an unknown channel 400 `{success: false, error: "[invalid-channel]"}`.
 */
export function startRocketChatServer(options: RocketChatFixtureOptions): Promise<FixtureServer> {
  return startFixtureServer((request) => {
    const body = request.json as { text?: unknown; channel?: unknown; roomId?: unknown } | undefined;
    const hook = /^\/hooks\/([^/]+)\/([^/]+)$/.exec(request.path);
    if (request.method === 'POST' && hook) {
      if (hook[1] !== options.hook.id || hook[2] !== options.hook.token) {
        return { status: 404, body: { success: false, error: 'Invalid integration id or token provided.' } };
      }
      if (body?.channel !== undefined && !options.channels.includes(body.channel as string)) {
        return { status: 400, body: { success: false, error: 'invalid-channel' } };
      }
      return { status: 200, body: { success: true } };
    }
    if (request.method === 'POST' && request.path === '/api/v1/chat.postMessage') {
      if (request.headers['x-auth-token'] !== options.user.token || request.headers['x-user-id'] !== options.user.id) {
        return { status: 401, body: { status: 'error', message: 'You must be logged in to do this.' } };
      }
      const channel = (body?.channel ?? body?.roomId) as string | undefined;
      if (channel === undefined || !options.channels.includes(channel))
        return { status: 400, body: { success: false, error: '[invalid-channel]' } };
      return {
        status: 200,
        body: {
          ts: Date.now(),
          channel,
          message: { _id: 'm1', msg: body?.text, u: { _id: options.user.id } },
          success: true,
        },
      };
    }
    return { status: 404, body: { success: false, error: 'Not found' } };
  });
}
