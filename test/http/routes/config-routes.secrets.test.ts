/**
 * The configuration routes and the secrets they hold (issue 33 items 1 and 3), on the hub as
 * `npm start` runs it (a real socket, DD_CONFIG_FILE, basic users with a second factor) and two real
 * webhook receivers on loopback:
 * - GET /api/v1/config, /server and /debug/dump show no TOTP seed, recovery code, download key,
 *   webhook path or bearer: the secret table's default-deny, one table for all of them;
 * - a masked secret does not follow a changed destination: an editor or a whole-file write sending
 *   a new trigger URL with `BEARER: "***"` gets a 400 naming BEARER, nothing is written, and the
 *   bearer still goes only to the receiver it was set for.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOB_HASH,
  cookieHeader,
  PASSWORD,
  RECOVERY_CODES,
  sessionIdOf,
  TOTP_SECRET,
  USERS_ENV,
} from '../../security/auth-fixtures';
import { createServerHub, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';
import { type NotificationReceiver, startNotificationReceiver } from '../../support/notification-receiver';

const BEARER = 'bearer-old-5c1e9a';
const HOOK_PATH = '/api/webhook/hook-id-4242?sig=sig-5b7e11&code=code-77d1a0';
const OSV_KEY = 'osv-key-1f2e3d';
// A closed port: the background OSV import fails at once, and that is all it does.
const OSV_URL = `http://127.0.0.1:9/osv.zip?key=${OSV_KEY}`;
const SECRETS = [
  TOTP_SECRET,
  ...RECOVERY_CODES,
  BOB_HASH.split('$').at(-1) as string,
  OSV_KEY,
  'hook-id-4242',
  'sig-5b7e11',
  'code-77d1a0',
  BEARER,
];

describe('configuration secrets through the hub', () => {
  let dir: string;
  let file: string;
  let hub: HubClient;
  let before: NotificationReceiver;
  let after: NotificationReceiver;
  let session: Record<string, string>;
  const origin = (receiver: NotificationReceiver) => `http://127.0.0.1:${receiver.port}`;
  const api = (path: string, init: RequestInit = {}) =>
    hub.request(`/api/v1${path}`, { ...init, headers: { ...(init.headers as object), ...session } });
  const edit = (values: Record<string, string>) => api('/config/triggers/http/ops', jsonInit('PUT', { values }));
  const run = () => api('/triggers/http/ops', jsonInit('POST', {}));

  beforeAll(async () => {
    [before, after] = await Promise.all([startNotificationReceiver(), startNotificationReceiver()]);
    dir = await mkdtemp(join(tmpdir(), 'hub-config-secrets-'));
    file = join(dir, 'hub.yaml');
    await writeFile(
      file,
      `DD_NOTIFICATION:\n  http:\n    ops:\n      url: "${origin(before)}${HOOK_PATH}"\n      bearer: ${BEARER}\n`,
    );
    hub = await createServerHub({
      ...USERS_ENV,
      DD_CONFIG_FILE: file,
      DD_SECURITY_SCANNER: 'osv',
      DD_SECURITY_OSV_URL: OSV_URL,
    });
    const signedIn = await hub.request(
      '/api/v1/auth/login',
      jsonInit('POST', { username: 'alice', password: PASSWORD }),
    );
    expect(signedIn.status).toBe(200);
    session = cookieHeader(sessionIdOf(signedIn) as string);
  });

  afterAll(async () => {
    await hub?.close();
    await Promise.all([before?.close(), after?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows no second factor, download key, webhook path or bearer in /config, /server or the debug dump (item 1)', async () => {
    const response = await api('/config');
    expect(response.status).toBe(200);
    const view = await response.json();
    const value = (name: string) => view.variables.find((variable: { name: string }) => variable.name === name)?.value;
    expect(value('DD_AUTH_BASIC_BOB_USER')).toBe('bob');
    for (const name of ['DD_AUTH_BASIC_BOB_HASH', 'DD_AUTH_BASIC_BOB_TOTP', 'DD_AUTH_BASIC_BOB_RECOVERY'])
      expect(value(name), name).toBe('***');
    expect(value('DD_SECURITY_OSV_URL')).toBe('http://127.0.0.1:9/***');
    expect(value('DD_NOTIFICATION_HTTP_OPS_URL')).toBe(`${origin(before)}/***`);
    expect(value('DD_NOTIFICATION_HTTP_OPS_BEARER')).toBe('***');
    expect(view.file.content).toContain(`${origin(before)}/***`);

    const server = await (await api('/server')).text();
    const dump = await api('/debug/dump');
    expect(dump.status).toBe(200);
    const shown = [JSON.stringify(view), server, await dump.text()];
    const logged = hub.logged.map((line) => JSON.stringify(line));
    for (const secret of SECRETS) {
      for (const text of shown) expect(text, secret).not.toContain(secret);
      for (const line of logged) expect(line, secret).not.toContain(secret);
    }
  });

  it('refuses a kept bearer when the trigger URL changes, in the editor and the whole file (item 3)', async () => {
    const original = await readFile(file, 'utf8');
    const refused = await expectJsonError(await edit({ URL: `${after.url}/new`, BEARER: '***' }), 400);
    expect(refused.details?.['problems']).toEqual([
      { variable: 'DD_NOTIFICATION_HTTP_OPS_BEARER', message: expect.stringContaining('URL changed') },
    ]);
    const content = (await (await api('/config')).json()).file.content as string;
    const moved = content.replace(`${origin(before)}/***`, `${after.url}/new`);
    const whole = await expectJsonError(await api('/config', jsonInit('PUT', { content: moved })), 400);
    expect(whole.details?.['problems']).toEqual([
      { variable: 'DD_NOTIFICATION_HTTP_OPS_BEARER', message: expect.stringContaining('URL changed') },
    ]);
    expect(await readFile(file, 'utf8')).toBe(original);

    // The trigger still runs where it was set up, with its bearer, and nothing reached the new host.
    expect((await run()).status).toBe(200);
    expect(before.received.map((request) => request.headers['authorization'])).toEqual([`Bearer ${BEARER}`]);
    expect(after.received).toEqual([]);
  });

  it('takes the new destination with the secret sent again, and keeps a mask where the destination stays', async () => {
    expect((await edit({ URL: `${after.url}/new`, BEARER: 'bearer-new-9d2c40' })).status).toBe(200);
    expect((await run()).status).toBe(200);
    expect(after.received.map((request) => request.headers['authorization'])).toEqual(['Bearer bearer-new-9d2c40']);
    // Sent back as the read showed them: the same URL and bearer, kept.
    const shownUrl = (await (await api('/config')).json()).variables.find(
      (variable: { name: string }) => variable.name === 'DD_NOTIFICATION_HTTP_OPS_URL',
    ).value;
    expect(shownUrl).toBe(`${origin(after)}/***`);
    expect((await edit({ URL: shownUrl, BEARER: '***', METHOD: 'put' })).status).toBe(200);
    expect((await run()).status).toBe(200);
    expect(after.received.at(-1)).toMatchObject({
      method: 'PUT',
      path: '/hook/new',
      headers: { authorization: 'Bearer bearer-new-9d2c40' },
    });
    // Each write is logged with who made it.
    expect(hub.logged.filter(({ entry }) => entry.msg.startsWith('configuration edited'))).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ by: 'user:alice' }) }),
      expect.objectContaining({ fields: expect.objectContaining({ by: 'user:alice' }) }),
    ]);
  });
});
