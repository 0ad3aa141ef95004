import { hashes, verify } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { EDGE_CLOSE } from '../../../shared/edge/protocol';
import { type Ed25519Verify, fromBase64Url, generateEdgeKeyPair, signInMessage } from '../../../shared/edge/sign-in';
import { CronCache } from '../schedule/cron-cache';
import type { EdgeKeyStore } from './edge-key-store';

/**
 * Where a sign-in finds its key and binds the agent's name: the hub's key store, or an edge gateway's
 * cache of the keys it asked the hub for (hub/src/edge/gateway/), whose name claims go to the hub.
 */
export type SignInKeys = Pick<EdgeKeyStore, 'publicKeyBytes' | 'claimName'> & {
  get(keyId: string): { revokedAt: string | null } | undefined;
};

import type { HelloFrame, SignInVerdict } from './edge-session';

const refuse = (code: number, message: string): SignInVerdict => ({ ok: false, code, message });

/** What the hub accepts of a hello's watchers: unique names and cron expressions it can schedule. */
export function checkAnnouncedWatchers(hello: HelloFrame, crons = new CronCache()): string | undefined {
  const names = new Set<string>();
  for (const watcher of hello.watchers) {
    if (names.has(watcher.name)) return `watcher ${watcher.name} is announced twice`;
    names.add(watcher.name);
    try {
      crons.of(watcher.cron);
    } catch {
      return `watcher ${watcher.name} has an invalid cron expression`;
    }
  }
  return undefined;
}

/**
 * @noble/ed25519 on this thread, where the runtime brings no native verification (Node brings
 * one: hub/src/adapter/node/ed25519-verify.ts; noble took 1 to 4 ms a sign-in on this machine, so
 * 10,000 agents signing in at once held the event loop for 10 to 40 s). Not its
 * verifyAsync: that hashes through WebCrypto, which Node runs on the libuv threadpool, so under a
 * burst of storage writes every sign-in queued behind thousands of fsyncs (bench edge-agents).
 */
export const nobleEd25519Verify: Ed25519Verify = (signature, message, publicKey) => {
  // noble's documented way to enable its synchronous functions; process-wide, and the async ones are unaffected.
  hashes.sha512 ??= sha512;
  return verify(signature, message, publicKey);
};

function verifyHello(
  verifyEd25519: Ed25519Verify,
  publicKey: Uint8Array,
  hello: HelloFrame,
  challenge: string,
  protocol: string,
): boolean {
  const signature = fromBase64Url(hello.signature);
  if (signature?.length !== 64 || publicKey.length !== 32) return false;
  try {
    return verifyEd25519(signature, signInMessage(challenge, protocol, hello.keyId, hello.agentName), publicKey);
  } catch {
    return false;
  }
}

/**
 * Checks a hello against the key registry (docs/edge-protocol.md "Sign-in"): an unknown key and a
 * bad signature get the same 4001, and an unknown key costs the same verification as a known one,
 * so neither the answer nor its timing tells which key ids exist. Only a caller that proved it
 * holds the key learns that it was revoked (4002) or that the name belongs to another key (4003).
 */
export function createSignInCheck(keys: SignInKeys, verifyEd25519: Ed25519Verify = nobleEd25519Verify) {
  // A real key pair, so the stand-in verification of an unknown key does the full work.
  let decoy: Promise<Uint8Array> | undefined;
  const crons = new CronCache();
  const decoyKey = () => {
    decoy ??= generateEdgeKeyPair().then((pair) => pair.publicKey);
    return decoy;
  };

  return async function checkSignIn(hello: HelloFrame, challenge: string, protocol: string): Promise<SignInVerdict> {
    const problem = checkAnnouncedWatchers(hello, crons);
    if (problem) return refuse(EDGE_CLOSE.invalidFrame, problem);
    const known = keys.publicKeyBytes(hello.keyId);
    const publicKey = known ?? (await decoyKey());
    const verified = verifyHello(verifyEd25519, publicKey, hello, challenge, protocol);
    const key = keys.get(hello.keyId);
    if (!known || !verified || !key)
      return refuse(EDGE_CLOSE.signInFailed, 'sign-in failed: unknown key or bad signature');
    if (key.revokedAt !== null) return refuse(EDGE_CLOSE.keyRevoked, 'this key was revoked');
    const claim = await keys.claimName(hello.agentName, hello.keyId);
    if (claim === 'taken') return refuse(EDGE_CLOSE.nameTaken, `the name ${hello.agentName} is bound to another key`);
    // Revoked while the name was being stored: the revocation wins.
    if (keys.get(hello.keyId)?.revokedAt !== null) return refuse(EDGE_CLOSE.keyRevoked, 'this key was revoked');
    return { ok: true };
  };
}
