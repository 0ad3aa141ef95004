import { argon2id } from '@noble/hashes/argon2.js';
import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { parseArgon2id } from './argon2-phc';
import type { BasicUser } from './basic-users';
import { createLoginVerifier } from './login-service';

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/=+$/, '');

function user(username: string, password: string, cost: { m: number; t: number }): BasicUser {
  const salt = new TextEncoder().encode(`salt-of-${username}`);
  const hash = argon2id(password, salt, { ...cost, p: 1, dkLen: 32 });
  const parsed = parseArgon2id(`$argon2id$v=19$m=${cost.m},t=${cost.t},p=1$${b64(salt)}$${b64(hash)}`);
  if (!parsed) throw new Error('fixture hash did not parse');
  return { id: username, username, hash: parsed, totpSecret: undefined, recoveryCodes: [] };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

describe('login verifier', () => {
  it('checks a password, and refuses a wrong one and an unknown user alike', async () => {
    const verifier = createLoginVerifier([user('alice', 'right', { m: 8, t: 1 })], createStorage(), Date.now);
    expect(await verifier.verify({ username: 'alice', password: 'right' })).toBe('password');
    expect(await verifier.verify({ username: 'alice', password: 'wrong' })).toBeUndefined();
    expect(await verifier.verify({ username: 'nobody', password: 'right' })).toBeUndefined();
  });

  // Issue 33 item 4: the decoy took the first user's parameters, so with a cheap first user an
  // unknown name answered in a fraction of the time a costly user's wrong password took.
  it('makes an unknown username cost as much as the costliest user (timing tells no names)', async () => {
    // About 1 ms and 45 ms of argon2id: a factor far above any scheduling noise.
    const users = [
      user('cheap', 'cheap-password', { m: 8, t: 1 }),
      user('costly', 'costly-password', { m: 4096, t: 2 }),
    ];
    const verifier = createLoginVerifier(users, createStorage(), Date.now);
    const timed = async (username: string) => {
      const started = performance.now();
      expect(await verifier.verify({ username, password: 'a wrong guess' })).toBeUndefined();
      return performance.now() - started;
    };
    await timed('costly');
    const unknown: number[] = [];
    const costly: number[] = [];
    for (let i = 0; i < 5; i++) {
      unknown.push(await timed(`nobody-${i}`));
      costly.push(await timed('costly'));
    }
    expect(median(unknown)).toBeGreaterThan(median(costly) * 0.5);
  });
});
