import { type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * Pushover's message API (https://pushover.net/api): `POST /1/messages.json`, form-encoded
 * `token, user, message` (required, ≤1024), `title` (≤250), `device`, `priority` (-2..2; 2 needs
 * `retry` ≥ 30 and `expire` ≤ 10800), `sound`. Success 200 `{status: 1, request}`; a refused
 * message 400 `{<field>: "invalid", errors: [...], status: 0, request}`.
 */
export function startPushoverServer(appToken: string, userKey: string): Promise<FixtureServer> {
  return startFixtureServer((request) => {
    if (request.method !== 'POST' || request.path !== '/1/messages.json')
      return { status: 404, body: { status: 0, errors: ['not found'] } };
    const form = request.form ?? new URLSearchParams();
    const refuse = (field: string, error: string) => ({
      status: 400,
      body: { [field]: 'invalid', errors: [error], status: 0, request: 'c1a2b3c4-0000-4000-8000-000000000000' },
    });
    if (form.get('token') !== appToken) return refuse('token', 'application token is invalid');
    if (form.get('user') !== userKey)
      return refuse('user', 'user identifier is not a valid user, group, or subscribed user key');
    const message = form.get('message') ?? '';
    if (message === '') return refuse('message', 'message cannot be blank');
    if (message.length > 1024) return refuse('message', 'message is too long');
    if ((form.get('title') ?? '').length > 250) return refuse('title', 'title is too long');
    const priority = form.get('priority');
    if (priority === '2') {
      const retry = Number(form.get('retry'));
      const expire = Number(form.get('expire'));
      if (!(retry >= 30)) return refuse('retry', 'retry is invalid');
      if (!(expire > 0 && expire <= 10_800)) return refuse('expire', 'expire is invalid');
    }
    return { status: 200, body: { status: 1, request: 'c1a2b3c4-0000-4000-8000-000000000001' } };
  });
}
