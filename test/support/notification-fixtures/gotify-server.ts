import { bearerOf, type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * Gotify's `POST /message` as its API reference documents it: the application token in the
 * `X-Gotify-Key` header, the `token` query parameter or `Authorization: Bearer`; body
 * `{title, message (required), priority, extras}`; answer the stored message
 * `{id, appid, message, title, priority, extras, date}`. Errors are `{error, errorCode,
 * errorDescription}`: 401 without a valid application token, 400 for a bad body.
 */
export function startGotifyServer(appToken: string, options: { basePath?: string } = {}): Promise<FixtureServer> {
  let nextId = 1;
  const base = options.basePath ?? '';
  return startFixtureServer((request) => {
    if (request.method !== 'POST' || request.path !== `${base}/message`)
      return gotifyError(404, 'Not Found', 'page not found');
    const token = request.headers['x-gotify-key'] ?? request.query.get('token') ?? bearerOf(request);
    if (token !== appToken) {
      return gotifyError(
        401,
        'Unauthorized',
        'you need to provide a valid access token or user credentials to access this api',
      );
    }
    const body = request.json as Record<string, unknown> | undefined;
    if (typeof body?.message !== 'string' || body.message === '')
      return gotifyError(400, 'Bad Request', "Field 'message' is required");
    if (body.priority !== undefined && !Number.isInteger(body.priority))
      return gotifyError(400, 'Bad Request', "Field 'priority' must be an integer");
    return {
      status: 200,
      body: {
        id: nextId++,
        appid: 1,
        message: body.message,
        title: body.title ?? 'dockwatch',
        priority: body.priority ?? 0,
        ...(body.extras !== undefined && { extras: body.extras }),
        date: new Date().toISOString(),
      },
    };
  });
}

function gotifyError(errorCode: number, error: string, errorDescription: string) {
  return { status: errorCode, body: { error, errorCode, errorDescription } };
}
