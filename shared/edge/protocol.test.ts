import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  AgentFrameSchema,
  EDGE_EXPORT_CHUNK_BYTES,
  EDGE_EXPORT_MAX_CREDIT,
  EDGE_MAX_FRAME_BYTES,
  EDGE_PROTOCOL,
  EDGE_SIGN_IN_MAX_FRAME_BYTES,
  EDGE_SUBPROTOCOLS,
  edgeProtocolOf,
  HubFrameSchema,
} from './protocol';
import {
  edgeKeyId,
  fromBase64Url,
  generateEdgeKeyPair,
  newChallenge,
  signChallenge,
  signInMessage,
  toBase64Url,
  verifySignIn,
} from './sign-in';

describe('edge/1.0 sign-in', () => {
  it('signs the documented bytes exactly', () => {
    const text = new TextDecoder().decode(signInMessage('abc', 'edge/1.0', '0123456789abcdef', 'nas'));
    expect(text).toBe('dockwatch-edge-sign-in\nedge/1.0\nabc\n0123456789abcdef\nnas');
  });

  it('derives the key id from the first 8 bytes of SHA-256 of the raw key', () => {
    // SHA-256 of 32 zero bytes starts 66687aadf862bd77 (a known vector).
    expect(edgeKeyId(new Uint8Array(32))).toBe('66687aadf862bd77');
  });

  it('verifies its own signature and refuses any change of challenge, version, key id or name', async () => {
    const { secretKey, publicKey } = await generateEdgeKeyPair();
    const keyId = edgeKeyId(publicKey);
    const challenge = newChallenge();
    const signature = await signChallenge(secretKey, challenge, EDGE_PROTOCOL, keyId, 'nas');
    expect(await verifySignIn(publicKey, signature, challenge, EDGE_PROTOCOL, keyId, 'nas')).toBe(true);
    expect(await verifySignIn(publicKey, signature, newChallenge(), EDGE_PROTOCOL, keyId, 'nas')).toBe(false);
    expect(await verifySignIn(publicKey, signature, challenge, 'edge/1.1', keyId, 'nas')).toBe(false);
    expect(await verifySignIn(publicKey, signature, challenge, EDGE_PROTOCOL, '0000000000000000', 'nas')).toBe(false);
    expect(await verifySignIn(publicKey, signature, challenge, EDGE_PROTOCOL, keyId, 'nas2')).toBe(false);
    const other = await generateEdgeKeyPair();
    expect(await verifySignIn(other.publicKey, signature, challenge, EDGE_PROTOCOL, keyId, 'nas')).toBe(false);
  });

  it('answers false, never throws, for malformed signatures and keys', async () => {
    const { publicKey } = await generateEdgeKeyPair();
    for (const signature of ['', 'not base64!', toBase64Url(new Uint8Array(63)), toBase64Url(new Uint8Array(64))]) {
      expect(await verifySignIn(publicKey, signature, 'c', EDGE_PROTOCOL, 'k', 'n')).toBe(false);
    }
    expect(await verifySignIn(new Uint8Array(31), toBase64Url(new Uint8Array(64)), 'c', EDGE_PROTOCOL, 'k', 'n')).toBe(
      false,
    );
    expect(fromBase64Url('a')).toBeUndefined();
  });
});

describe('edge/1.0 frames', () => {
  it('accepts both reply forms and refuses a reply mixing them', () => {
    expect(v.safeParse(AgentFrameSchema, { type: 'reply', id: '1', ok: true, result: { a: 1 } }).success).toBe(true);
    expect(
      v.safeParse(AgentFrameSchema, { type: 'reply', id: '1', ok: false, error: { code: 'failed', message: 'x' } })
        .success,
    ).toBe(true);
    expect(v.safeParse(AgentFrameSchema, { type: 'reply', id: '1', ok: false }).success).toBe(false);
  });

  it('bounds image.export: its credit, the credit frames and the chunks (a full chunk frame well under the frame cap)', () => {
    const request = (credit: unknown) => ({
      type: 'request',
      id: '1',
      request: { method: 'image.export', watcher: 'local', imageId: 'sha256:1', credit },
    });
    for (const credit of [1, EDGE_EXPORT_MAX_CREDIT]) expect(v.is(HubFrameSchema, request(credit))).toBe(true);
    for (const credit of [0, -1, 1.5, EDGE_EXPORT_MAX_CREDIT + 1, '4', undefined])
      expect(v.is(HubFrameSchema, request(credit))).toBe(false);
    expect(v.is(HubFrameSchema, { type: 'credit', id: '1', chunks: 2 })).toBe(true);
    for (const chunks of [0, EDGE_EXPORT_MAX_CREDIT + 1, 2.5])
      expect(v.is(HubFrameSchema, { type: 'credit', id: '1', chunks })).toBe(false);

    const chunk = (data: string, seq: unknown = 0) => ({ type: 'chunk', id: '1', seq, data });
    const full = Buffer.alloc(EDGE_EXPORT_CHUNK_BYTES, 255).toString('base64');
    expect(v.is(AgentFrameSchema, chunk(full))).toBe(true);
    expect(JSON.stringify(chunk(full, 2 ** 40)).length).toBeLessThan(EDGE_MAX_FRAME_BYTES / 2);
    expect(v.is(AgentFrameSchema, chunk(Buffer.alloc(EDGE_EXPORT_CHUNK_BYTES + 3).toString('base64')))).toBe(false);
    // Length and padding here; the alphabet where the hub decodes (edge-requests.test.ts: 4004).
    for (const data of ['', 'abc', 'YQ=', 'YQ===YQ']) expect(v.is(AgentFrameSchema, chunk(data))).toBe(false);
    for (const seq of [-1, 0.5, '0', null]) expect(v.is(AgentFrameSchema, chunk('YQ==', seq))).toBe(false);
  });

  it('refuses unknown types, unknown methods and bad names', () => {
    expect(v.safeParse(AgentFrameSchema, { type: 'shell', cmd: 'rm -rf /' }).success).toBe(false);
    expect(v.safeParse(HubFrameSchema, { type: 'request', id: '1', request: { method: 'exec' } }).success).toBe(false);
    const hello = {
      type: 'hello',
      protocol: EDGE_PROTOCOL,
      keyId: '0123456789abcdef',
      agentName: 'Bad Name',
      signature: 'abc',
      agent: {
        version: '1',
        hostname: 'h',
        os: 'linux',
        arch: 'x64',
        cpus: 2,
        memoryGb: 1,
        uptimeSeconds: 1,
        logLevel: 'info',
      },
      watchers: [],
    };
    expect(v.safeParse(AgentFrameSchema, hello).success).toBe(false);
    expect(v.safeParse(AgentFrameSchema, { ...hello, agentName: 'nas-1' }).success).toBe(true);
  });

  it('fits the largest hello the schema allows (every field at its maximum, ASCII) under the pre-sign-in frame cap', () => {
    const text = (length: number) => 'a'.repeat(length);
    const hello = {
      type: 'hello',
      protocol: EDGE_PROTOCOL,
      keyId: '0123456789abcdef',
      agentName: `a${text(62)}`,
      signature: text(128),
      agent: {
        ...{ version: text(256), build: text(256), hostname: text(256), os: text(256), arch: text(256) },
        ...{
          cpus: 1_000_000,
          memoryGb: 1_048_576.123456,
          uptimeSeconds: 123_456_789_012,
          logLevel: 'debug',
          containerId: 'f'.repeat(64),
        },
      },
      watchers: Array.from({ length: 32 }, (_, i) => ({
        ...{ name: `w${String(i).padStart(62, '0')}`, endpoint: text(256), cron: text(256) },
        ...{ jitterSeconds: 1_000_000, watchAll: false, watchByDefault: false },
      })),
    };
    expect(v.safeParse(AgentFrameSchema, hello).success).toBe(true);
    const bytes = new TextEncoder().encode(JSON.stringify(hello)).length;
    // A schema change that lets a hello grow past the cap must raise the cap (or shrink the hello).
    expect(bytes).toBeGreaterThan(20_000);
    expect(bytes * 1.25).toBeLessThan(EDGE_SIGN_IN_MAX_FRAME_BYTES);
  });
});

describe('edge/1.0 subprotocol', () => {
  it('offers RFC 7230 tokens in the upgrade (ws and browsers refuse `/` there) and maps them back', () => {
    const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
    for (const subprotocol of EDGE_SUBPROTOCOLS) expect(subprotocol).toMatch(token);
    expect(EDGE_SUBPROTOCOLS).toEqual(['edge.1.0']);
    expect(edgeProtocolOf('edge.1.0')).toBe(EDGE_PROTOCOL);
    expect(edgeProtocolOf('edge/1.0')).toBeUndefined();
    expect(edgeProtocolOf('edge.2.0')).toBeUndefined();
  });
});
