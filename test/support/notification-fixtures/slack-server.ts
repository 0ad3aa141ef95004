import { bearerOf, type FixtureServer, type RecordedRequest, startFixtureServer } from './fixture-server';

export interface SlackFixtureOptions {
  /** The incoming webhook's path: `/services/T…/B…/<secret>`. */
  webhookPath: string;
  /** The bot token the Web API accepts, and the channels it has joined. */
  botToken: string;
  channels: string[];
}

/**
 * Slack's two ways in. Incoming webhooks (https://api.slack.com/messaging/webhooks): `POST` JSON
 * with `text` and/or `blocks`, answer 200 `ok` (text/html); errors as plain-text codes: 400
 * `invalid_payload` or `no_text`, 403 `invalid_token`, 404 `no_service`. The Web API's
 * `chat.postMessage`: `Authorization: Bearer xoxb-…`, JSON `{channel, text, blocks}`; always 200,
 * `{ok: true, channel, ts, message}` or `{ok: false, error: "invalid_auth" | "channel_not_found" |
 * "not_in_channel" | …}`, and 429 with `Retry-After` when rate limited.
 */
export function startSlackServer(options: SlackFixtureOptions): Promise<FixtureServer> {
  return startFixtureServer((request) => {
    if (request.path.startsWith('/services/')) return webhook(request, options);
    if (request.path === '/api/chat.postMessage' && request.method === 'POST') return postMessage(request, options);
    return { status: 404, body: 'no_service' };
  });
}

function webhook(request: RecordedRequest, options: SlackFixtureOptions) {
  if (request.method !== 'POST') return { status: 405, body: 'invalid_method' };
  if (request.path !== options.webhookPath) return { status: 403, body: 'invalid_token' };
  const body = request.json as { text?: unknown; blocks?: unknown } | undefined;
  if (!body) return { status: 400, body: 'invalid_payload' };
  if (typeof body.text !== 'string' && !Array.isArray(body.blocks)) return { status: 400, body: 'no_text' };
  if (!validBlocks(body.blocks)) return { status: 400, body: 'invalid_blocks' };
  return { status: 200, headers: { 'content-type': 'text/html' }, body: 'ok' };
}

function postMessage(request: RecordedRequest, options: SlackFixtureOptions) {
  if (bearerOf(request) !== options.botToken) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
  const body = request.json as { channel?: unknown; text?: unknown; blocks?: unknown } | undefined;
  if (!body) return { status: 200, body: { ok: false, error: 'invalid_json' } };
  if (typeof body.channel !== 'string') return { status: 200, body: { ok: false, error: 'channel_not_found' } };
  if (!options.channels.includes(body.channel)) return { status: 200, body: { ok: false, error: 'not_in_channel' } };
  if (typeof body.text !== 'string' && !Array.isArray(body.blocks))
    return { status: 200, body: { ok: false, error: 'no_text' } };
  if (!validBlocks(body.blocks)) return { status: 200, body: { ok: false, error: 'invalid_blocks' } };
  return {
    status: 200,
    body: { ok: true, channel: body.channel, ts: '1715000000.000100', message: { text: body.text } },
  };
}

/** Block Kit limits the provider relies on: header plain_text ≤ 150, section text ≤ 3000. */
function validBlocks(blocks: unknown): boolean {
  if (blocks === undefined) return true;
  if (!Array.isArray(blocks)) return false;
  return blocks.every((block: { type?: string; text?: { type?: string; text?: string } }) => {
    if (block.type === 'header') return block.text?.type === 'plain_text' && (block.text.text?.length ?? 0) <= 150;
    if (block.type === 'section') return (block.text?.text?.length ?? 0) <= 3000;
    return false;
  });
}
