import type { Storage } from 'unstorage';
import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';
import { type Argon2idHash, verifyArgon2id } from './argon2-phc';
import type { BasicUser } from './basic-users';
import type { SessionPrincipal } from './session-store';
import { matchTotp } from './totp';
import { createTotpReplayGuard } from './totp-replay';

export interface LoginAttempt {
  username: string;
  password: string;
  otp?: string | undefined;
  recoveryCode?: string | undefined;
}

export interface LoginVerifier {
  /** The assurance reached, or undefined on any failure (which one is never told). */
  verify(attempt: LoginAttempt): Promise<SessionPrincipal['assurance'] | undefined>;
}

const usedRecoveryKey = (userId: string): string => `auth:recovery-used:${userId}`;

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Work of one verification: memory (KiB) times passes; lanes run one after another here. */
const costOf = (hash: Argon2idHash) => hash.m * hash.t;

/**
 * What an unknown username is verified against: the costliest user's parameters (issue 33), so an
 * unknown name never answers faster than a known one's wrong password and timing cannot tell which
 * names exist. (It may answer slower than a cheaper user's: that tells nothing either.)
 */
function decoyHash(users: readonly BasicUser[]): Argon2idHash | undefined {
  let costliest: Argon2idHash | undefined;
  for (const { hash } of users) {
    if (!costliest || costOf(hash) > costOf(costliest)) costliest = hash;
  }
  return costliest && { ...costliest, hash: new Uint8Array(costliest.hash.length) };
}

/**
 * Checks basic users' credentials. A TOTP code is accepted once (its step and earlier ones are
 * refused afterwards, restarts included: the step is kept in storage until its window passes); a
 * recovery code once ever (its digest is kept in storage).
 */
export function createLoginVerifier(users: readonly BasicUser[], storage: Storage, now: () => number): LoginVerifier {
  const totpReplay = createTotpReplayGuard(storage, now);
  const recoveryTurns = new Map<string, Promise<boolean>>();
  const decoy = decoyHash(users);

  async function consumeRecovery(user: BasicUser, code: string): Promise<boolean> {
    let matched: string | undefined;
    for (const candidate of user.recoveryCodes) {
      if ((await timingSafeEqualText(candidate, code)) && matched === undefined) matched = candidate;
    }
    if (matched === undefined) return false;
    const hashed = await digest(matched);
    // Read, check and write one user's list in turn: two concurrent sign-ins with one code would
    // otherwise both read it unused.
    const turn = (recoveryTurns.get(user.id) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        const used = (await storage.getItem<string[]>(usedRecoveryKey(user.id))) ?? [];
        if (Array.isArray(used) && used.includes(hashed)) return false;
        await storage.setItem(usedRecoveryKey(user.id), [...(Array.isArray(used) ? used : []), hashed]);
        return true;
      });
    recoveryTurns.set(user.id, turn);
    return turn;
  }

  async function secondFactor(
    user: BasicUser,
    attempt: LoginAttempt,
  ): Promise<SessionPrincipal['assurance'] | undefined> {
    if (attempt.otp !== undefined && user.totpSecret) {
      const step = await matchTotp(user.totpSecret, attempt.otp.trim(), now());
      if (step === undefined || !(await totpReplay.claim(user.id, step))) return undefined;
      return 'otp';
    }
    if (attempt.recoveryCode !== undefined && user.recoveryCodes.length > 0) {
      return (await consumeRecovery(user, attempt.recoveryCode.trim())) ? 'recovery-code' : undefined;
    }
    // A user with a TOTP secret must give a second factor; one with recovery codes only may use them.
    return user.totpSecret ? undefined : 'password';
  }

  return {
    async verify(attempt) {
      const user = users.find((candidate) => candidate.username === attempt.username);
      const hash = user?.hash ?? decoy;
      if (!hash) return undefined;
      const passwordOk = await verifyArgon2id(attempt.password, hash);
      if (!user || !passwordOk) return undefined;
      return secondFactor(user, attempt);
    },
  };
}
