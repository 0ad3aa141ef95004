import { type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * A Mattermost incoming webhook: `POST /hooks/{key}` with JSON `{text, channel?, username?,
 * icon_url?, attachments?}`; answers 200 `ok` (text/plain). Errors are the server's AppError JSON
 * `{id, message, detailed_error, request_id, status_code}`: 400 `web.incoming_webhook.invalid.app_error`
 * for an unknown hook, 400 `…text.app_error` without text, 403 when the channel may not be overridden.
 */
export function startMattermostServer(hookKey: string, channels: string[]): Promise<FixtureServer> {
  const appError = (status: number, id: string, message: string) => ({
    status,
    body: { id, message, detailed_error: '', request_id: 'r1', status_code: status },
  });
  return startFixtureServer((request) => {
    const match = /^\/hooks\/(\w+)$/.exec(request.path);
    if (request.method !== 'POST' || !match)
      return appError(404, 'api.context.404.app_error', 'Sorry, we could not find the page.');
    if (match[1] !== hookKey) return appError(400, 'web.incoming_webhook.invalid.app_error', 'Invalid webhook.');
    const body = request.json as { text?: unknown; channel?: unknown; attachments?: unknown } | undefined;
    if (!body) return appError(400, 'web.incoming_webhook.parse.app_error', 'Unable to parse incoming data.');
    if ((typeof body.text !== 'string' || body.text === '') && body.attachments === undefined) {
      return appError(400, 'web.incoming_webhook.text.app_error', 'No text specified.');
    }
    if (body.channel !== undefined && !channels.includes(body.channel as string)) {
      return appError(
        403,
        'web.incoming_webhook.channel_locked.app_error',
        'This webhook is not permitted to post to the requested channel.',
      );
    }
    return { status: 200, body: 'ok' };
  });
}
