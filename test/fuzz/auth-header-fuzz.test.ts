/**
 * Fuzz of the credentials a request carries: the Authorization header and the Cookie header, alone
 * and together, on the real hub in memory and on a socket (plus raw bytes no fetch would send).
 *
 * Each generated value carries its class, and an oracle derived from http-interface §5.2, §5.4 and §2.15
 * says which statuses are due: the exact key credential authenticates (200, or 403 where it lacks
 * the scope); any other Bearer value, key-shaped or not, gets the one uniform 401 (429 once its
 * address has failed too often) and is never retried against the cookie; anything else falls
 * through to the session cookie, which authenticates only as the exact `dd.sid` of a live session. Never a 5xx, every
 * refusal is http-interface §2.15 JSON, and the hub keeps serving afterwards.
 *
 * Deterministic: FUZZ_SEED=<seed> npx vitest run test/fuzz/auth-header-fuzz.test.ts reproduces a run.
 */
import net from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeClientAddress } from '../../hub/src/adapter/node/node-connection';
import { FAILED_ATTEMPT_LIMIT } from '../../hub/src/auth/api-key-auth';
import { ErrorBodySchema } from '../../shared/schemas/error-body';
import { cookieHeader, PASSWORD, sessionIdOf, USERS_ENV } from '../security/auth-fixtures';
import { createMemoryHub, createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { withTimeout } from '../support/with-timeout';
import { HOSTILE_STRINGS, preview, type Rng, rngFor, seedFromEnv, seedHex } from './generators';

const SEED = seedFromEnv(process.env['FUZZ_SEED']);
const SEED_TAG = `seed ${seedHex(SEED)}`;
const ENV = { ...USERS_ENV, DD_SERVER_TRUSTPROXY: '1' };
const TIMEOUT_MS = 10_000;
/** Node's default limit on the header section; beyond it the parser answers 431 before the hub. */
const NODE_HEADER_LIMIT = 16 * 1024;

type AuthClass = 'none' | 'exact' | 'key-fail' | 'other' | 'unknown';
type CookieClass = 'none' | 'valid' | 'invalid' | 'ambiguous';
type Principal = 'key' | 'session' | 'unauthenticated';

interface Credentials {
  /** A live key with scope read only. */
  apiKey: string;
  keyId: string;
  /** A key revoked before the fuzz. */
  revokedKey: string;
  /** A live session id, and one that was signed out. */
  session: string;
  endedSession: string;
}

/** The targets: one per outcome a principal can have. */
const TARGETS = [
  { path: '/api/v1/settings', key: 200, session: 200, unauthenticated: 401 },
  { path: '/api/v1/api-keys', key: 403, session: 200, unauthenticated: 401 },
  { path: '/api/v1/auth/user', key: 401, session: 200, unauthenticated: 401 },
] as const;
type Target = (typeof TARGETS)[number];

// ---------------------------------------------------------------------------------------------
// Generators

/** What the hub reads as `Authorization: Bearer <value>` (after trimming the header). */
const BEARER_VALUE = /^bearer +(.+)$/i;

const utf8AsLatin1 = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** Latin-1 text without CR, LF or NUL: what fetch and Node let through as a header value. */
function randomLatin1(rng: Rng, max: number): string {
  let out = '';
  for (let i = rng.int(0, max); i > 0; i--)
    out += String.fromCharCode(rng.pick([rng.int(0x20, 0x7e), rng.int(0x80, 0xff), 0x09]));
  return out;
}

/** The text with one character in [from, to) replaced by another. */
function mutateOneChar(rng: Rng, text: string, from: number, to = text.length): string {
  const at = rng.int(from, to - 1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let replacement = text[at] as string;
  while (replacement === text[at]) replacement = rng.pick([...alphabet]);
  return `${text.slice(0, at)}${replacement}${text.slice(at + 1)}`;
}

function genAuthorization(rng: Rng, creds: Credentials): { value: string | undefined; class: AuthClass } {
  const key = creds.apiKey;
  const secretStart = `ddk_${creds.keyId}_`.length;
  const roll = rng.next();
  if (roll < 0.12) return { value: undefined, class: 'none' };
  if (roll < 0.24) {
    const scheme = rng.pick(['Bearer', 'bearer', 'BEARER', 'BeArEr']);
    return {
      value: `${rng.pick(['', ' ', '\t'])}${scheme}${' '.repeat(rng.int(1, 3))}${key}${rng.pick(['', ' ', '\t '])}`,
      class: 'exact',
    };
  }
  if (roll < 0.58) {
    const nearMisses = [
      () => mutateOneChar(rng, key, secretStart),
      () => mutateOneChar(rng, key, 4, secretStart - 1),
      () => key.slice(0, rng.int(4, key.length - 1)),
      () => `${key}${rng.pick(['=', '==', 'x', '_', '.', '\u00e9', ';', ',', '%00'])}`,
      () => `${key}${'A'.repeat(rng.int(1, 64))}`,
      () => `ddk_${creds.keyId.toUpperCase()}_${key.slice(secretStart)}`,
      () => `ddk__${creds.keyId}_${key.slice(secretStart)}`,
      () => `ddk_${creds.keyId}__${key.slice(secretStart)}`,
      () => `ddk_${creds.keyId}`,
      () => 'ddk_',
      () => `ddk_${'a'.repeat(12)}_${'A'.repeat(43)}`,
      () => creds.revokedKey,
      () => `ddk_${creds.keyId}_${utf8AsLatin1(`${key.slice(secretStart, -1)}\u0410`)}`,
      () => `ddk_${randomLatin1(rng, 80)}`,
      () => `ddk_${creds.keyId}_${key.slice(secretStart)} ${key}`,
      () => `ddk_${'x'.repeat(rng.pick([1_000, 8_000, 40_000]))}`,
    ];
    return { value: `${rng.pick(['Bearer ', 'bearer ', 'Bearer   '])}${rng.pick(nearMisses)()}`, class: 'key-fail' };
  }
  if (roll < 0.82) {
    const others = [
      () => `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`,
      () => 'Bearer',
      () => 'Bearer ',
      () => `Bearer ${randomLatin1(rng, 60).replace(/^ddk_/i, 'x')}x`,
      () => `Bearer DDK_${key.slice(4)}`,
      () => `Bearer\u00a0${key}`,
      () => `Bearerddk_${key.slice(4)}`,
      () => `Token ${key}`,
      () => key,
      () => `Bearer ${key.replace('ddk_', 'ddk-')}`,
      () => `Negotiate ${'Y'.repeat(rng.int(1, 400))}`,
      () => utf8AsLatin1(rng.pick(HOSTILE_STRINGS).replace(/[\0\r\n]/g, '')) || 'x',
      () => `Bearer ${utf8AsLatin1('\u{1f433}\u202eddk_')}`,
    ];
    const value = rng.pick(others)();
    // A Bearer value of any shape is a key credential on these targets (http-interface §5.4: malformed ones too).
    return { value, class: BEARER_VALUE.test(value.trim()) ? 'key-fail' : 'other' };
  }
  return { value: randomLatin1(rng, 300), class: 'unknown' };
}

function genCookie(rng: Rng, creds: Credentials): { value: string | undefined; class: CookieClass } {
  const id = creds.session;
  const roll = rng.next();
  if (roll < 0.2) return { value: undefined, class: 'none' };
  if (roll < 0.4) {
    const valid = [
      `dd.sid=${id}`,
      `theme=dark; dd.sid=${id}`,
      `dd.sid=${id}; other=1`,
      `a=1; b=2; c=3; dd.sid=${id}; d=4`,
      `dd.sid= ${id} `,
      `dd.sid=${id};`,
    ];
    return { value: rng.pick(valid), class: 'valid' };
  }
  if (roll < 0.5) {
    // Spellings the cookie syntax leaves open (quotes, percent-encoding, repeats): either answer is sound.
    const ambiguous = [
      `dd.sid="${id}"`,
      `dd.sid=${[...id].map((char) => `%${char.charCodeAt(0).toString(16)}`).join('')}`,
      `dd.sid=${id}; dd.sid=${mutateOneChar(rng, id, 0)}`,
      `dd.sid=${mutateOneChar(rng, id, 0)}; dd.sid=${id}`,
      `dd.sid=\\; dd.sid=${id}`,
      `dd.sid${rng.pick(['', ' '])}=${id}`,
    ];
    return { value: rng.pick(ambiguous), class: 'ambiguous' };
  }
  const hex = () => Array.from({ length: 64 }, () => rng.pick([...'0123456789abcdef'])).join('');
  const invalid = [
    () => 'dd.sid=',
    () => `dd.sid=${hex()}`,
    () => `dd.sid=${mutateOneChar(rng, id, 0)}`,
    () => `dd.sid=${id}x`,
    () => `dd.sid=${id.slice(0, -1)}`,
    () => `dd.sid=${id.toUpperCase()}`,
    () => `dd.sid=${creds.endedSession}`,
    () => `DD.SID=${id}`,
    () => `dd_sid=${id}`,
    () => `dd.sid:${id}`,
    () => `dd.sid ${id}`,
    () => `dd.sid=../../${id}`,
    () => 'dd.sid=%00',
    () => 'dd.sid=%E0%A4%A',
    () => `dd.sid=${'a'.repeat(rng.pick([65, 4_000, 12_000]))}`,
    () => '__proto__=1; constructor=2; dd.sid=toString',
    () => Array.from({ length: rng.int(20, 300) }, (_, i) => `c${i}=${i}`).join('; '),
    () => 'dd.sid=a;'.repeat(rng.int(2, 500)),
    () => `dd.sid=${utf8AsLatin1(rng.pick(HOSTILE_STRINGS).replace(/[\0\r\n]/g, ''))}`,
    () => randomLatin1(rng, 300),
    () => `dd.sid=${randomLatin1(rng, 100)}`,
  ];
  return { value: rng.pick(invalid)(), class: 'invalid' };
}

// ---------------------------------------------------------------------------------------------
// The oracle

function principals(auth: AuthClass, cookie: CookieClass): Set<Principal | 'key-refused'> {
  const fromCookie = (): Principal[] =>
    cookie === 'valid' ? ['session'] : cookie === 'ambiguous' ? ['session', 'unauthenticated'] : ['unauthenticated'];
  if (auth === 'exact') return new Set(['key']);
  // http-interface §5.4: a failed key credential is never retried against the cookie.
  if (auth === 'key-fail') return new Set(['key-refused']);
  if (auth === 'unknown') return new Set(['key-refused', ...fromCookie()]);
  return new Set(fromCookie());
}

function allowedStatuses(
  target: Target,
  auth: AuthClass,
  cookie: CookieClass,
  headerBytes: number,
  mode: 'memory' | 'server',
): Set<number> {
  const allowed = new Set<number>();
  for (const principal of principals(auth, cookie)) {
    if (principal === 'key-refused') allowed.add(401);
    else allowed.add(target[principal]);
  }
  if (mode === 'server' && headerBytes > NODE_HEADER_LIMIT - 512) allowed.add(431);
  return allowed;
}

// ---------------------------------------------------------------------------------------------
// Checks

interface Seen {
  status: number;
  headers: Headers;
  text: string;
}

/** Every request of the fuzz answers within TIMEOUT_MS, or the hub hung. */
const answered = <T>(promise: Promise<T>, label: string, ms = TIMEOUT_MS): Promise<T> =>
  withTimeout(promise, label, ms);

function expectJsonRefusal(seen: Seen, context: string): void {
  if (seen.status < 400) return;
  expect(seen.headers.get('content-type') ?? '', `refusal without JSON: ${context}`).toMatch(/^application\/json/);
  let json: unknown;
  try {
    json = JSON.parse(seen.text);
  } catch {
    json = undefined;
  }
  expect(
    v.safeParse(ErrorBodySchema, json).success,
    `no http-interface §2.15 body: ${context} -> ${preview(seen.text, 200)}`,
  ).toBe(true);
}

let uniqueAddress = 0;
/** A fresh client address per request, so the failed-key limiter stays out of the way unless a batch wants it. */
const freshAddress = (): string => {
  uniqueAddress++;
  return `10.${(uniqueAddress >> 16) & 255}.${(uniqueAddress >> 8) & 255}.${uniqueAddress & 255}`;
};

// fetch refuses control characters in a header value before sending; the raw-socket suite sends those.
const FETCH_REFUSES = /[^\t\x20-\x7e\x80-\xff]/g;

async function send(client: HubClient, path: string, headers: Record<string, string>, context: string): Promise<Seen> {
  const sent =
    client.mode === 'server'
      ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replace(FETCH_REFUSES, '?')]))
      : headers;
  const response = await answered(client.request(path, { headers: sent }), context);
  return {
    status: response.status,
    headers: response.headers,
    text: await answered(response.text(), `${context} (body)`),
  };
}

// ---------------------------------------------------------------------------------------------
// Setup

async function prepare(client: HubClient): Promise<Credentials> {
  const signIn = async () =>
    sessionIdOf(
      await client.request('/api/v1/auth/login', jsonInit('POST', { username: 'alice', password: PASSWORD })),
    );
  const session = (await signIn()) as string;
  const endedSession = (await signIn()) as string;
  expect(
    (await client.request('/api/v1/auth/logout', { method: 'POST', headers: cookieHeader(endedSession) })).status,
  ).toBe(204);
  const create = async (name: string) =>
    (await (
      await client.request('/api/v1/api-keys', jsonInit('POST', { name, scopes: ['read'] }, cookieHeader(session)))
    ).json()) as {
      apiKey: string;
      keyId: string;
    };
  const live = await create('fuzz-live');
  const revoked = await create('fuzz-revoked');
  const revoke = await client.request(`/api/v1/api-keys/${revoked.keyId}`, {
    method: 'DELETE',
    headers: { ...cookieHeader(session), 'X-DD-Confirm-Action': 'api-key-revoke' },
  });
  expect(revoke.status).toBe(200);
  return { apiKey: live.apiKey, keyId: live.keyId, revokedKey: revoked.apiKey, session, endedSession };
}

async function expectStillServing(client: HubClient, creds: Credentials, context: string): Promise<void> {
  expect((await client.request('/health')).status, `${context}: /health`).toBe(200);
  expect(
    (await client.request('/api/v1/settings', { headers: { authorization: `Bearer ${creds.apiKey}` } })).status,
    `${context}: key`,
  ).toBe(200);
  expect(
    (await client.request('/api/v1/settings', { headers: cookieHeader(creds.session) })).status,
    `${context}: session`,
  ).toBe(200);
  const errors = client.logged
    .filter(({ entry }) => entry.level === 'error' || entry.level === 'fatal')
    .map(({ entry }) => entry.msg);
  expect(errors, `${context}: the hub logged errors`).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Suites

for (const mode of ['memory', 'server'] as const) {
  describe(`Authorization and Cookie header fuzz [${mode}] (${SEED_TAG})`, () => {
    let client: HubClient;
    let creds: Credentials;
    beforeAll(async () => {
      client =
        mode === 'memory'
          ? await createMemoryHub(ENV, { clientAddress: nodeClientAddress(1) })
          : await createServerHub(ENV);
      creds = await prepare(client);
    });
    afterAll(() => client.close());

    it('answers each combination per http-interface §5: never a 5xx, never a stray 200, JSON refusals, one uniform key 401', async () => {
      const rng = rngFor(SEED, `auth-headers-${mode}`);
      const cases = mode === 'memory' ? 900 : 450;
      const keyFailureBodies = new Set<string>();
      const tally: Record<string, number> = {};
      for (let i = 0; i < cases; i++) {
        const target = rng.pick(TARGETS);
        const auth = genAuthorization(rng, creds);
        const cookie = genCookie(rng, creds);
        const headers: Record<string, string> = { 'x-forwarded-for': freshAddress() };
        if (auth.value !== undefined) headers['authorization'] = auth.value;
        if (cookie.value !== undefined) headers['cookie'] = cookie.value;
        const bytes = (auth.value?.length ?? 0) + (cookie.value?.length ?? 0);
        const context = `[${SEED_TAG} #${i}] GET ${target.path} auth(${auth.class})=${preview(JSON.stringify(auth.value ?? null), 120)} cookie(${cookie.class})=${preview(JSON.stringify(cookie.value ?? null), 120)}`;
        const seen = await send(client, target.path, headers, context);
        const allowed = allowedStatuses(target, auth.class, cookie.class, bytes, mode);
        expect([...allowed], `${context} -> ${seen.status} ${preview(seen.text, 200)}`).toContain(seen.status);
        expectJsonRefusal(seen, context);
        if (auth.class === 'key-fail' && seen.status === 401) {
          keyFailureBodies.add(seen.text);
          expect(seen.headers.get('www-authenticate'), context).toBe('Bearer error="invalid_token"');
        }
        // Nothing the caller sent comes back.
        if (auth.value && auth.value.length > 8)
          expect(seen.text.includes(auth.value.trim()), `${context}: echoed the credential`).toBe(false);
        tally[`${auth.class}/${cookie.class}/${seen.status}`] =
          (tally[`${auth.class}/${cookie.class}/${seen.status}`] ?? 0) + 1;
      }
      expect([...keyFailureBodies], 'key failures differ in their bodies').toEqual(['{"error":"Invalid API key"}']);
      // The run reached every class, so the oracle was exercised throughout.
      for (const auth of ['none', 'exact', 'key-fail', 'other', 'unknown'])
        expect(
          Object.keys(tally).some((key) => key.startsWith(`${auth}/`)),
          auth,
        ).toBe(true);
      for (const cookie of ['none', 'valid', 'invalid', 'ambiguous'])
        expect(
          Object.keys(tally).some((key) => key.includes(`/${cookie}/`)),
          cookie,
        ).toBe(true);
      await expectStillServing(client, creds, `[${SEED_TAG}] after the fuzz`);
    }, 120_000);

    it('answers key guesses from one address 401 until the limit, then 429 with Retry-After, the right key included', async () => {
      const rng = rngFor(SEED, `auth-headers-limit-${mode}`);
      const address = freshAddress();
      for (let i = 0; i < FAILED_ATTEMPT_LIMIT; i++) {
        const { value, class: kind } = genAuthorization(rng, creds);
        const guess =
          kind === 'key-fail' && value !== undefined && value.length < 1_000
            ? value
            : `Bearer ddk_${creds.keyId}_${'G'.repeat(43)}`;
        const seen = await send(
          client,
          '/api/v1/settings',
          { authorization: guess, 'x-forwarded-for': address },
          `limit #${i}`,
        );
        expect(seen.status, `limit #${i} ${preview(guess)}`).toBe(401);
      }
      for (const authorization of [`Bearer ddk_${creds.keyId}_${'H'.repeat(43)}`, `Bearer ${creds.apiKey}`]) {
        const seen = await send(
          client,
          '/api/v1/settings',
          { authorization, 'x-forwarded-for': address },
          'past the limit',
        );
        expect(seen.status).toBe(429);
        expect(Number(seen.headers.get('retry-after'))).toBeGreaterThan(0);
        expectJsonRefusal(seen, 'past the limit');
      }
      // A cookie from that address is not part of it; neither is the key from elsewhere.
      expect(
        (
          await send(
            client,
            '/api/v1/settings',
            { ...cookieHeader(creds.session), 'x-forwarded-for': address },
            'cookie',
          )
        ).status,
      ).toBe(200);
      await expectStillServing(client, creds, `[${SEED_TAG}] after the limit`);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Raw bytes over a socket: values no fetch would send (control bytes, UTF-8, oversize)

interface RawSeen {
  status: number;
  contentType: string;
  body: string;
}

function rawRequest(port: number, headerLines: Buffer[]): Promise<RawSeen> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('raw request: no answer in time'));
    }, TIMEOUT_MS);
    socket.on('connect', () => {
      socket.write(
        Buffer.concat([
          Buffer.from('GET /api/v1/settings HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n', 'latin1'),
          ...headerLines.flatMap((line) => [line, Buffer.from('\r\n')]),
          Buffer.from('\r\n'),
        ]),
      );
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const contentType = /\r\ncontent-type: *([^\r\n]*)/i.exec(head)?.[1] ?? '';
      resolve({ status, contentType, body });
    });
  });
}

function randomBytes(rng: Rng, max: number): Buffer {
  const bytes: number[] = [];
  for (let i = rng.int(0, max); i > 0; i--) {
    let byte = rng.int(0, 255);
    // CR and LF would end the header line: that is framing, not a header value.
    while (byte === 0x0d || byte === 0x0a) byte = rng.int(0, 255);
    bytes.push(byte);
  }
  return Buffer.from(bytes);
}

describe(`Authorization and Cookie raw bytes over a socket (${SEED_TAG})`, () => {
  let client: HubClient;
  let creds: Credentials;
  let port: number;
  beforeAll(async () => {
    client = await createServerHub(ENV);
    creds = await prepare(client);
    port = Number(new URL(client.url as string).port);
  });
  afterAll(() => client.close());

  it('answers control bytes, UTF-8 and oversized values with a JSON 400, 401 or 431, and never lets one in', async () => {
    const rng = rngFor(SEED, 'auth-headers-raw');
    const seenStatuses = new Set<number>();
    for (let i = 0; i < 160; i++) {
      const pick = rng.int(0, 5);
      const value =
        pick === 0
          ? randomBytes(rng, 200)
          : pick === 1
            ? Buffer.from(
                `Bearer ${creds.apiKey.slice(0, -2)}${rng.pick(HOSTILE_STRINGS).replace(/[\r\n]/g, '')}`,
                'utf8',
              )
            : pick === 2
              ? Buffer.from(
                  `dd.sid=${creds.session.slice(0, 60)}${rng.pick(HOSTILE_STRINGS).replace(/[\r\n]/g, '')}`,
                  'utf8',
                )
              : pick === 3
                ? Buffer.concat([Buffer.from('Bearer ddk_'), randomBytes(rng, 120)])
                : pick === 4
                  ? Buffer.from(`Bearer ddk_${'Z'.repeat(rng.pick([10_000, 17_000, 70_000]))}`, 'latin1')
                  : // A control byte after a live id: a tab would be trimmed as whitespace, so it is left out.
                    Buffer.concat([
                      Buffer.from(`dd.sid=${creds.session}`),
                      Buffer.from([rng.pick([0, 1, 7, 8, 11, 12, 27, 31, 127])]),
                    ]);
      const header = pick === 2 || pick === 5 || (pick === 0 && rng.bool()) ? 'Cookie' : 'Authorization';
      const context = `[${SEED_TAG} raw #${i}] ${header}: ${preview(JSON.stringify(value.toString('latin1')), 160)}`;
      const seen = await rawRequest(port, [
        Buffer.from(`X-Forwarded-For: ${freshAddress()}`),
        Buffer.concat([Buffer.from(`${header}: `), value]),
      ]);
      expect([400, 401, 431], `${context} -> ${seen.status} ${preview(seen.body, 200)}`).toContain(seen.status);
      expect(seen.contentType, context).toMatch(/^application\/json/);
      expect(v.safeParse(ErrorBodySchema, JSON.parse(seen.body)).success, context).toBe(true);
      seenStatuses.add(seen.status);
    }
    expect([...seenStatuses].sort()).toEqual([400, 401, 431]);
    await expectStillServing(client, creds, `[${SEED_TAG}] after raw bytes`);
  }, 120_000);
});
