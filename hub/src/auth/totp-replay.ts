import type { Storage } from 'unstorage';
import * as v from 'valibot';
import { totpStepExpiresAt } from './totp';

/** The last TOTP step a user signed in with, until codes of that step are refused anyway. */
const UsedTotpStepSchema = v.object({
  step: v.pipe(v.number(), v.integer(), v.minValue(0)),
  expiresAt: v.pipe(v.number(), v.integer()),
});
type UsedTotpStep = v.InferOutput<typeof UsedTotpStepSchema>;

const usedTotpKey = (userId: string): string => `auth:totp-used:${userId}`;

export interface TotpReplayGuard {
  /**
   * Claims a matched step for a user: true once, false for that step or an earlier one ever after,
   * restarts included (a replayed code, or an older one captured alongside it).
   */
  claim(userId: string, step: number): Promise<boolean>;
}

/**
 * Replay memory of TOTP codes, kept in the hub's storage so a restart inside a code's window
 * cannot accept it again. One record per user: the last step used, with the instant its window
 * passes; after that it blocks nothing (every code a sign-in can match is newer) and is ignored.
 */
export function createTotpReplayGuard(storage: Storage, now: () => number): TotpReplayGuard {
  const lastStep = new Map<string, number>();
  const loaded = new Map<string, Promise<void>>();
  const writes = new Map<string, Promise<unknown>>();

  async function load(userId: string): Promise<void> {
    const stored = v.safeParse(UsedTotpStepSchema, await storage.getItem(usedTotpKey(userId)));
    // A bad record is ignored like any other, and a spent one (every code it could block is too old
    // to match now) is no longer needed; the next claim overwrites either.
    if (!stored.success || stored.output.expiresAt <= now()) return;
    lastStep.set(userId, Math.max(lastStep.get(userId) ?? -1, stored.output.step));
  }

  return {
    async claim(userId, step) {
      // Loaded once per user and process; every claim awaits the same load, then checks and claims
      // with no await in between, so two concurrent sign-ins with one code cannot both pass.
      let loading = loaded.get(userId);
      if (!loading) {
        loading = load(userId);
        loaded.set(userId, loading);
        loading.catch(() => loaded.delete(userId));
      }
      await loading;
      if (step <= (lastStep.get(userId) ?? -1)) return false;
      lastStep.set(userId, step);
      // Writes of one user are chained, so a later step can never be overwritten by an earlier one.
      const record: UsedTotpStep = { step, expiresAt: totpStepExpiresAt(step) };
      const write = (writes.get(userId) ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => storage.setItem(usedTotpKey(userId), record));
      writes.set(userId, write);
      await write;
      return true;
    },
  };
}
