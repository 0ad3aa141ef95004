import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { EDGE_CLOSE, EDGE_PROTOCOL } from '../../../shared/edge/protocol';
import { edgeKeyId, generateEdgeKeyPair, newChallenge, signChallenge, toBase64 } from '../../../shared/edge/sign-in';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { sampleAgentInfo, sampleWatcher } from '../../../test/support/edge-peer';
import { createEdgeKeyStore } from './edge-key-store';
import type { HelloFrame } from './edge-session';
import { createSignInCheck } from './sign-in-check';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });

async function setup() {
  const keys = createEdgeKeyStore(createStorage(), () => 0, logger);
  await keys.load();
  const pair = await generateEdgeKeyPair();
  const keyId = edgeKeyId(pair.publicKey);
  await keys.register({ publicKey: toBase64(pair.publicKey), keyId, label: '' });
  const challenge = newChallenge();
  const hello = async (agentName: string, overrides: Partial<HelloFrame> = {}): Promise<HelloFrame> => ({
    type: 'hello',
    protocol: EDGE_PROTOCOL,
    keyId,
    agentName,
    signature: await signChallenge(pair.secretKey, challenge, EDGE_PROTOCOL, keyId, agentName),
    agent: sampleAgentInfo(),
    watchers: [sampleWatcher()],
    ...overrides,
  });
  return { keys, keyId, challenge, hello, check: createSignInCheck(keys) };
}

describe('sign-in check', () => {
  it('accepts a good hello and binds the name', async () => {
    const { keys, keyId, challenge, hello, check } = await setup();
    expect(await check(await hello('nas'), challenge, EDGE_PROTOCOL)).toEqual({ ok: true });
    expect(keys.bindingOf('nas')?.keyId).toBe(keyId);
  });

  it('answers an unknown key and a bad signature with the same 4001, and binds nothing', async () => {
    const { keys, challenge, hello, check } = await setup();
    const unknown = await check(await hello('nas', { keyId: '0000000000000000' }), challenge, EDGE_PROTOCOL);
    const badSignature = await check(await hello('nas'), newChallenge(), EDGE_PROTOCOL);
    expect(unknown).toEqual({ ok: false, code: EDGE_CLOSE.signInFailed, message: expect.any(String) });
    expect(badSignature).toEqual(unknown);
    expect(keys.bindingOf('nas')).toBeUndefined();
  });

  it('tells the holder of a revoked key 4002 and a taken name 4003', async () => {
    const { keys, keyId, challenge, hello, check } = await setup();
    await keys.claimName('taken', '1111111111111111');
    expect(await check(await hello('taken'), challenge, EDGE_PROTOCOL)).toMatchObject({
      ok: false,
      code: EDGE_CLOSE.nameTaken,
    });
    await keys.revoke(keyId);
    expect(await check(await hello('nas'), challenge, EDGE_PROTOCOL)).toMatchObject({
      ok: false,
      code: EDGE_CLOSE.keyRevoked,
    });
  });

  it('refuses watchers announced twice or with a cron the hub cannot schedule (4004)', async () => {
    const { challenge, hello, check } = await setup();
    const base = await hello('nas');
    const twice = { ...base, watchers: [...base.watchers, ...base.watchers] };
    const badCron = {
      ...base,
      watchers: [{ ...(base.watchers[0] as HelloFrame['watchers'][number]), cron: 'every minute' }],
    };
    expect(await check(twice, challenge, EDGE_PROTOCOL)).toMatchObject({ ok: false, code: EDGE_CLOSE.invalidFrame });
    expect(await check(badCron, challenge, EDGE_PROTOCOL)).toMatchObject({ ok: false, code: EDGE_CLOSE.invalidFrame });
  });
});
