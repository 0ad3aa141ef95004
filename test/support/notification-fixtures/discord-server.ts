import { type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * Discord's "Execute Webhook": `POST /api/webhooks/{webhook.id}/{webhook.token}` with JSON
 * `{content?, username?, avatar_url?, embeds?, allowed_mentions?}`; 204 No Content (without
 * `?wait=true`). Errors are `{message, code}`: 404 Unknown Webhook (10015) for an unknown id,
 * 401 Invalid Webhook Token (50027) for a wrong token, 400 Cannot send an empty message (50006),
 * 400 with the failing fields for an embed over its limits (title 256, description 4096).
 */
export function startDiscordServer(webhook: { id: string; token: string }): Promise<FixtureServer> {
  return startFixtureServer((request) => {
    const match = /^\/api\/webhooks\/(\d+)\/([^/]+)$/.exec(request.path);
    if (request.method !== 'POST' || !match) return { status: 404, body: { message: '404: Not Found', code: 0 } };
    if (match[1] !== webhook.id) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
    if (match[2] !== webhook.token) return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    const body = request.json as { content?: string; embeds?: { title?: string; description?: string }[] } | undefined;
    if (!body) return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    const embeds = body.embeds ?? [];
    if (!body.content && embeds.length === 0)
      return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    for (const [index, embed] of embeds.entries()) {
      if ((embed.title?.length ?? 0) > 256 || (embed.description?.length ?? 0) > 4096) {
        return { status: 400, body: { embeds: [String(index)], message: 'Invalid Form Body', code: 50035 } };
      }
    }
    return { status: 204 };
  });
}
