import { type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * The Apprise API (github.com/caronc/apprise-api, "API Details"): `POST /notify/{KEY}` with
 * `{body (required), title, type, tag, format}` notifies the URLs saved under KEY; `POST /notify/`
 * with `{urls, body, …}` notifies the given URLs. Answers: 200 sent; 204 nothing to notify (no
 * configuration for the key, no URL to notify); 400 a bad payload (no body, unknown type or format);
 * 424 one or more services failed (here: any URL containing `fail`).
 */
export function startAppriseServer(saved: Record<string, string[]>): Promise<FixtureServer> {
  return startFixtureServer((request) => {
    const match = /^\/notify\/?([\w-]*)$/.exec(request.path);
    if (request.method !== 'POST' || !match) return { status: 404, body: 'Not Found' };
    const body = request.json as { urls?: unknown; body?: unknown; type?: unknown; format?: unknown } | undefined;
    if (!body || typeof body.body !== 'string' || body.body === '')
      return { status: 400, body: { error: 'Bad FORM Payload provided' } };
    if (body.type !== undefined && !['info', 'success', 'warning', 'failure'].includes(body.type as string)) {
      return { status: 400, body: { error: 'An invalid payload type was specified.' } };
    }
    if (body.format !== undefined && !['text', 'markdown', 'html'].includes(body.format as string)) {
      return { status: 400, body: { error: 'An invalid body input format was specified.' } };
    }
    const key = match[1];
    const urls = key ? saved[key] : typeof body.urls === 'string' ? body.urls.split(/[\s,]+/).filter(Boolean) : [];
    if (!urls || urls.length === 0) return { status: 204 };
    if (urls.some((url) => url.includes('fail')))
      return { status: 424, body: { error: 'One or more notification could not be sent.' } };
    return { status: 200, body: { error: null } };
  });
}
