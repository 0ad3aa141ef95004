/**
 * Secrets never reach the logs or the API's answers. One scenario signs in with a password, a TOTP
 * code and a recovery code, fails sign-ins in every way, uses HTTP Basic on the compatibility routes
 * (right and wrong), creates keys (one minted by another key),
 * uses them, fails them, revokes one and signs out; then every log line the hub wrote (the sink
 * in memory and on a socket, pino's stdout and stderr of a real process, at trace level), the log
 * ring, the audit trail and every answer are searched for each secret used.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryHub, createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { startHubProcess } from '../support/hub-process';
import {
  ALICE_HASH,
  BOB_HASH,
  BOB_PASSWORD,
  base32Decode,
  cookieHeader,
  PASSWORD,
  RECOVERY_CODES,
  sessionIdOf,
  TOTP_SECRET,
  totp,
  USERS_ENV,
} from './auth-fixtures';

type Request = (path: string, init?: RequestInit) => Promise<Response>;

interface Answer {
  label: string;
  text: string;
}

interface ScenarioResult {
  /** Long secrets: searched for as plain substrings. */
  secrets: Set<string>;
  /** Six-digit TOTP codes: searched for as whole tokens, so a timestamp's digits do not match by chance. */
  codes: Set<string>;
  /** Answers that may show nothing secret at all. */
  answers: Answer[];
  /** Each create answer with the one credential it is meant to show. */
  created: { text: string; apiKey: string }[];
  keyIds: string[];
  session: Record<string, string>;
}

const ARGON2_HASH_PART = (phc: string) => phc.split('$').at(-1) as string;

async function scenario(request: Request): Promise<ScenarioResult> {
  const secrets = new Set<string>([PASSWORD, BOB_PASSWORD, TOTP_SECRET, ALICE_HASH, BOB_HASH, ...RECOVERY_CODES]);
  const totpBytes = base32Decode(TOTP_SECRET);
  for (const form of [
    totpBytes.toString('hex'),
    totpBytes.toString('base64').replace(/=+$/, ''),
    totpBytes.toString('base64url'),
  ])
    secrets.add(form);
  secrets.add(ARGON2_HASH_PART(ALICE_HASH));
  secrets.add(ARGON2_HASH_PART(BOB_HASH));
  const codes = new Set<string>();
  const answers: Answer[] = [];
  const created: ScenarioResult['created'] = [];
  const keyIds: string[] = [];

  const send = async (
    label: string,
    path: string,
    init?: RequestInit,
  ): Promise<{ response: Response; text: string }> => {
    const response = await request(path, init);
    const text = await response.text();
    answers.push({ label, text });
    return { response, text };
  };
  const login = async (body: Record<string, unknown>) => {
    for (const key of ['password', 'otp', 'recoveryCode'] as const) {
      const value = body[key];
      if (typeof value !== 'string') continue;
      if (key === 'otp') codes.add(value);
      else secrets.add(value);
    }
    const { response } = await send(
      `login ${JSON.stringify(body.username)}`,
      '/api/v1/auth/login',
      jsonInit('POST', body),
    );
    const id = sessionIdOf(response);
    if (id) secrets.add(id);
    return { status: response.status, id };
  };

  // Failures of every kind first.
  const wrongOtp = String((Number(totp(Date.now())) + 500_000) % 1_000_000).padStart(6, '0');
  const failures = [
    { username: 'alice', password: 'Tr0ub4dor&3-wrong' },
    { username: 'alice', password: `${PASSWORD}!` },
    { username: 'mallory', password: 'mallory-guess-77' },
    { username: 'bob', password: BOB_PASSWORD },
    { username: 'bob', password: BOB_PASSWORD, otp: wrongOtp },
    { username: 'bob', password: BOB_PASSWORD, recoveryCode: 'rc-not-a-real-code-1' },
    { username: 'bob', password: 'bob-wrong-password-2', recoveryCode: RECOVERY_CODES[1] },
  ];
  for (const body of failures) expect((await login(body)).status).toBe(401);

  // Sign-ins with each factor.
  const alice = await login({ username: 'alice', password: PASSWORD });
  const bobOtp = await login({ username: 'bob', password: BOB_PASSWORD, otp: totp(Date.now()) });
  const bobRecovery = await login({ username: 'bob', password: BOB_PASSWORD, recoveryCode: RECOVERY_CODES[0] });
  expect([alice.status, bobOtp.status, bobRecovery.status]).toEqual([200, 200, 200]);
  const session = cookieHeader(alice.id as string);

  // HTTP Basic on the What's Up Docker compatibility routes: right, then wrong.
  const basicWrong = 'basic-wrong-secret-9f3e';
  secrets.add(basicWrong);
  for (const [password, status] of [
    [PASSWORD, 200],
    [basicWrong, 401],
  ] as const) {
    const credential = Buffer.from(`alice:${password}`).toString('base64');
    secrets.add(credential);
    const { response } = await send(`basic ${status}`, '/api/containers', {
      headers: { authorization: `Basic ${credential}` },
    });
    expect(response.status).toBe(status);
  }

  // Keys: one made by a session, one minted by that key; used, failed, listed, revoked.
  const createKey = async (label: string, body: Record<string, unknown>, headers: Record<string, string>) => {
    const { response, text } = await send(label, '/api/v1/api-keys', jsonInit('POST', body, headers));
    expect(response.status).toBe(201);
    answers.pop(); // shows its own credential by design; checked on its own below
    const { apiKey, keyId } = JSON.parse(text) as { apiKey: string; keyId: string };
    secrets.add(apiKey);
    secrets.add(apiKey.slice(`ddk_${keyId}_`.length));
    created.push({ text, apiKey });
    keyIds.push(keyId);
    return { apiKey, keyId };
  };
  const parent = await createKey('create parent', { name: 'ci', scopes: ['api-keys:manage', 'read'] }, session);
  const child = await createKey(
    'create child',
    { name: 'dash', scopes: ['read'] },
    { authorization: `Bearer ${parent.apiKey}` },
  );
  const bearer = (credential: string) => ({ headers: { authorization: `Bearer ${credential}` } });
  expect((await send('use child', '/api/v1/settings', bearer(child.apiKey))).response.status).toBe(200);
  expect((await send('server by key', '/api/v1/server', bearer(parent.apiKey))).response.status).toBe(200);
  const flipped = `${child.apiKey.slice(0, -1)}${child.apiKey.endsWith('A') ? 'B' : 'A'}`;
  const nearMisses = [
    flipped,
    `ddk_${child.keyId}_${'Q'.repeat(43)}`,
    `ddk_zzzzzzzzzzzz_${child.apiKey.slice(-43)}`,
    `${parent.apiKey}x`,
  ];
  for (const credential of nearMisses) {
    secrets.add(credential);
    expect((await send('near miss', '/api/v1/settings', bearer(credential))).response.status).toBe(401);
  }
  expect((await send('list', '/api/v1/api-keys', { headers: session })).response.status).toBe(200);
  const revoke = await send('revoke', `/api/v1/api-keys/${child.keyId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${parent.apiKey}`, 'X-DD-Confirm-Action': 'api-key-revoke' },
  });
  expect(revoke.response.status).toBe(200);
  expect((await send('use revoked', '/api/v1/settings', bearer(child.apiKey))).response.status).toBe(401);
  expect((await send('list again', '/api/v1/api-keys?limit=200', bearer(parent.apiKey))).response.status).toBe(200);
  expect((await send('server by session', '/api/v1/server', { headers: session })).response.status).toBe(200);
  expect(
    (await send('user', '/api/v1/auth/user', { headers: cookieHeader(bobOtp.id as string) })).response.status,
  ).toBe(200);
  expect(
    (await send('logout', '/api/v1/auth/logout', { method: 'POST', headers: cookieHeader(bobRecovery.id as string) }))
      .response.status,
  ).toBe(204);
  // What the hub keeps and tells about itself: the log ring and the audit trail.
  expect(
    (await send('log ring', '/api/v1/log/entries?tail=1000&level=trace', { headers: session })).response.status,
  ).toBe(200);
  expect((await send('audit', '/api/v1/audit?limit=200', { headers: session })).response.status).toBe(200);
  return { secrets, codes, answers, created, keyIds, session };
}

const codePattern = (code: string) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`);

/** Every secret absent from the text; the failing secret is named by its kind and length only. */
function expectNoSecret(text: string, result: Pick<ScenarioResult, 'secrets' | 'codes'>, where: string): void {
  for (const secret of result.secrets) {
    if (text.includes(secret))
      throw new Error(`${where} contains a secret (${secret.length} characters, starting ${secret.slice(0, 4)}…)`);
  }
  for (const code of result.codes) {
    if (codePattern(code).test(text)) throw new Error(`${where} contains a TOTP code`);
  }
}

function expectCleanAnswers(result: ScenarioResult, digests: readonly string[]): void {
  const everything = { secrets: new Set([...result.secrets, ...digests]), codes: result.codes };
  for (const answer of result.answers) expectNoSecret(answer.text, everything, `the answer to "${answer.label}"`);
  for (const { text, apiKey } of result.created) {
    expect(text).toContain(apiKey);
    const others = new Set([...everything.secrets].filter((secret) => !apiKey.includes(secret)));
    expectNoSecret(text, { secrets: others, codes: result.codes }, 'a create answer');
  }
  // The listed records do show each key's public prefix, which is how keys are told apart.
  const list = result.answers.find((answer) => answer.label === 'list again')?.text ?? '';
  for (const keyId of result.keyIds) expect(list).toContain(`ddk_${keyId}\u2026`);
}

async function digestsOf(client: HubClient, keyIds: readonly string[]): Promise<string[]> {
  const digests = keyIds.map((keyId) => client.hub.parts.apiKeys.get(keyId)?.digest);
  expect(digests.every((digest) => typeof digest === 'string' && digest.length === 64)).toBe(true);
  return digests as string[];
}

for (const mode of ['memory', 'server'] as const) {
  describe(`secrets stay out of logs and answers [${mode}]`, () => {
    it('logs and answers carry no password, code, key, session id, hash or TOTP secret', async () => {
      const client =
        mode === 'memory'
          ? await createMemoryHub({ ...USERS_ENV, DD_COMPAT_WUDCARD: 'true', DD_LOG_LEVEL: 'trace' })
          : await createServerHub({ ...USERS_ENV, DD_COMPAT_WUDCARD: 'true', DD_LOG_LEVEL: 'trace' });
      try {
        const result = await scenario(client.request);
        const digests = await digestsOf(client, result.keyIds);
        // The run did log: sign-in failures and key failures are warnings with their context.
        const logged = client.logged.map((line) => JSON.stringify(line)).join('\n');
        expect(logged).toContain('sign-in failed');
        expect(logged).toContain('API key authentication failed');
        expectNoSecret(logged, { secrets: new Set([...result.secrets, ...digests]), codes: result.codes }, 'the log');
        expectCleanAnswers(result, digests);
      } finally {
        await client.close();
      }
    });
  });
}

describe('secrets stay out of the output of a real hub process', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('writes none to stdout or stderr (pino, trace level) nor shows any in answers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dd-secrets-'));
    dirs.push(dir);
    const hub = await startHubProcess({
      ...(USERS_ENV as Record<string, string>),
      DD_COMPAT_WUDCARD: 'true',
      DD_STORE_DRIVER: 'fs',
      DD_STORE_PATH: dir,
      DD_LOG_LEVEL: 'trace',
      DD_LOCAL_WATCHER: 'false',
    });
    let result: ScenarioResult;
    try {
      result = await scenario((path, init) => fetch(`${hub.url}${path}`, init));
    } finally {
      expect(await hub.kill('SIGTERM')).toBe(0);
    }
    const output = [...hub.stdout, ...hub.stderr].join('\n');
    expect(output).toContain('sign-in failed');
    // The stored key records hold the digests the answers and logs must not show either.
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    const stored = await Promise.all(files.map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')));
    const digests = stored.flatMap((text) =>
      [...text.matchAll(/"digest":"([a-f0-9]{64})"/g)].map((match) => match[1] as string),
    );
    expect(digests).toHaveLength(2);
    expectNoSecret(
      output,
      { secrets: new Set([...result.secrets, ...digests]), codes: result.codes },
      'the process output',
    );
    expectCleanAnswers(result, digests);
  });
});
