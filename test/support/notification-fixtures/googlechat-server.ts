import { type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * A Google Chat incoming webhook: `POST /v1/spaces/{space}/messages?key=<key>&token=<token>` with
 * JSON `{text}` (`Content-Type: application/json; charset=UTF-8`); answers the created Message
 * `{name, text, space, createTime, …}`. Errors are `{error: {code, message, status}}`: 400
 * INVALID_ARGUMENT (no text; an API key that is not valid), 401 UNAUTHENTICATED (a wrong token).
 */
export function startGoogleChatServer(space: string, key: string, token: string): Promise<FixtureServer> {
  let count = 0;
  const error = (code: number, status: string, message: string) => ({
    status: code,
    body: { error: { code, message, status } },
  });
  return startFixtureServer((request) => {
    if (request.method !== 'POST' || request.path !== `/v1/spaces/${space}/messages`)
      return error(404, 'NOT_FOUND', 'Requested entity was not found.');
    if (request.query.get('key') !== key)
      return error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    if (request.query.get('token') !== token)
      return error(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
    const body = request.json as { text?: unknown } | undefined;
    if (typeof body?.text !== 'string' || body.text === '')
      return error(400, 'INVALID_ARGUMENT', 'Message cannot be empty. Discarding empty create message request.');
    count++;
    return {
      status: 200,
      body: {
        name: `spaces/${space}/messages/m${count}`,
        text: body.text,
        space: { name: `spaces/${space}` },
        createTime: new Date().toISOString(),
      },
    };
  });
}
