import { basicOf, bearerOf, type FixtureServer, type RecordedRequest, startFixtureServer } from './fixture-server';

export interface NtfyFixtureOptions {
  /** Publishing needs this access token (`tk_…`) or these credentials; open when neither is set. */
  token?: string;
  user?: { name: string; password: string };
}

/**
 * ntfy's publish API as https://docs.ntfy.sh/publish/ documents it, JSON form: `POST /` with
 * `{topic, message, title, priority (1-5), tags, markdown}`; answers the message
 * `{id, time, expires, event: "message", topic, …}`. Errors are `{code, http, error, link}`:
 * 40101 unauthorized (no or wrong credentials on a protected server), 40001 invalid request
 * (not JSON), 40009 invalid topic, 40007 invalid priority.
 */
export function startNtfyServer(options: NtfyFixtureOptions = {}): Promise<FixtureServer> {
  return startFixtureServer((request) => {
    if (request.method !== 'POST' && request.method !== 'PUT') return ntfyError(405, 40501, 'method not allowed');
    if (!authorized(request, options)) return ntfyError(401, 40101, 'unauthorized');
    if (request.path !== '/') return ntfyError(404, 40401, 'page not found');
    const body = request.json as Record<string, unknown> | undefined;
    if (typeof body !== 'object' || body === null) return ntfyError(400, 40001, 'invalid request: body must be JSON');
    if (typeof body.topic !== 'string' || !/^[-_A-Za-z0-9]{1,64}$/.test(body.topic))
      return ntfyError(400, 40009, 'invalid topic');
    if (
      body.priority !== undefined &&
      !(Number.isInteger(body.priority) && (body.priority as number) >= 1 && (body.priority as number) <= 5)
    ) {
      return ntfyError(400, 40007, 'invalid priority');
    }
    return {
      status: 200,
      body: {
        id: 'sPs71M8A2T',
        time: Math.floor(Date.now() / 1000),
        expires: Math.floor(Date.now() / 1000) + 43_200,
        event: 'message',
        topic: body.topic,
        title: body.title,
        message: body.message ?? 'triggered',
        ...(body.priority !== undefined && { priority: body.priority }),
        ...(body.tags !== undefined && { tags: body.tags }),
      },
    };
  });
}

function authorized(request: RecordedRequest, options: NtfyFixtureOptions): boolean {
  if (options.token !== undefined) return bearerOf(request) === options.token;
  if (options.user !== undefined) {
    const basic = basicOf(request);
    return basic?.user === options.user.name && basic.password === options.user.password;
  }
  return true;
}

function ntfyError(http: number, code: number, error: string) {
  return { status: http, body: { code, http, error, link: 'https://ntfy.sh/docs/publish/' } };
}
