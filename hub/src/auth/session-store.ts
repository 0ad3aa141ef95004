import type { Storage } from 'unstorage';
import type { Principal } from './principal';

export type SessionPrincipal = Extract<Principal, { kind: 'session' }>;

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
/** …and this long after sign-in whatever happens. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000;
// lastSeenAt is written at most this often, so reads do not each cost a storage write.
const TOUCH_INTERVAL_MS = 60_000;

interface StoredSession {
  username: string;
  assurance: SessionPrincipal['assurance'];
  createdAt: number;
  lastSeenAt: number;
}

export interface SessionStore {
  /** A new session; the returned id goes into the cookie only. */
  create(username: string, assurance: SessionPrincipal['assurance']): Promise<string>;
  /** The live session for an id (its idle clock restarted), or undefined. */
  resolve(id: string): Promise<SessionPrincipal | undefined>;
  destroy(id: string): Promise<void>;
  /** Deletes every expired session: one never used again would otherwise stay in storage for good. */
  sweep(): Promise<void>;
}

const toHex = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** Storage holds a SHA-256 of the id, never the id: a leaked store cannot be replayed as cookies. */
async function storageKey(id: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(id));
  return `sessions:${toHex(new Uint8Array(digest))}`;
}

const ID_PATTERN = /^[a-f0-9]{64}$/;

export function createSessionStore(storage: Storage, now: () => number): SessionStore {
  const expired = (stored: StoredSession, at: number) =>
    at - stored.lastSeenAt >= SESSION_IDLE_MS || at - stored.createdAt >= SESSION_ABSOLUTE_MS;
  return {
    async create(username, assurance) {
      const id = toHex(crypto.getRandomValues(new Uint8Array(32)));
      const at = now();
      await storage.setItem<StoredSession>(await storageKey(id), {
        username,
        assurance,
        createdAt: at,
        lastSeenAt: at,
      });
      return id;
    },
    async resolve(id) {
      if (!ID_PATTERN.test(id)) return undefined;
      const key = await storageKey(id);
      const stored = await storage.getItem<StoredSession>(key);
      if (!stored || typeof stored.username !== 'string') return undefined;
      const at = now();
      if (expired(stored, at)) {
        await storage.removeItem(key);
        return undefined;
      }
      if (at - stored.lastSeenAt >= TOUCH_INTERVAL_MS)
        await storage.setItem<StoredSession>(key, { ...stored, lastSeenAt: at });
      return { kind: 'session', username: stored.username, assurance: stored.assurance };
    },
    async destroy(id) {
      if (ID_PATTERN.test(id)) await storage.removeItem(await storageKey(id));
    },
    async sweep() {
      const at = now();
      for (const key of await storage.getKeys('sessions')) {
        const stored = await storage.getItem<StoredSession>(key);
        // A record that is not a session is no session either (resolve() refuses it).
        if (!stored || typeof stored.lastSeenAt !== 'number' || expired(stored, at)) await storage.removeItem(key);
      }
    },
  };
}
