import type { Storage } from 'unstorage';
import { fromBase64 } from '../../../shared/edge/sign-in';
import type { Logger } from '../../../shared/logging/logger';
import {
  type AgentNameBinding,
  AgentNameBindingSchema,
  type EdgeKey,
  EdgeKeySchema,
} from '../../../shared/schemas/edge-key';
import { createSerialQueue, readAllValidated } from '../store/validated-storage';
import type { AuthorizedKey } from './authorized-keys';

const KEY_PREFIX = 'edge-keys';
const NAME_PREFIX = 'edge-names';
const keyOf = (keyId: string) => `${KEY_PREFIX}:${keyId}`;
const nameOf = (agentName: string) => `${NAME_PREFIX}:${agentName}`;

export interface EdgeKeyStore {
  load(): Promise<void>;
  get(keyId: string): EdgeKey | undefined;
  /** Newest first. */
  list(): EdgeKey[];
  /** Stores a new key; 'exists' when that key is registered already (revoked or not). */
  register(key: AuthorizedKey): Promise<EdgeKey | 'exists'>;
  /**
   * The keys not registered yet, stored in one batch (DD_EDGE_AUTHORIZED_KEYS at start: 10,000 keys
   * one write after another held a start for a minute on fs); resolves with how many were new.
   */
  registerMany(keys: readonly AuthorizedKey[]): Promise<number>;
  /** Sets revokedAt once, in memory at once (before the write resolves); undefined for an unknown key. */
  revoke(keyId: string): Promise<EdgeKey | undefined>;
  /** The raw 32 bytes of a registered key (decoded once). */
  publicKeyBytes(keyId: string): Uint8Array | undefined;
  bindingOf(agentName: string): AgentNameBinding | undefined;
  namesOf(keyId: string): string[];
  /**
   * Binds the name to the key when it is free. Check and set happen in one synchronous step, so
   * two keys signing in with one new name at once cannot both get it: the first wins.
   */
  claimName(agentName: string, keyId: string): Promise<'bound' | 'taken'>;
}

/** Edge keys and agent-name bindings (decisions §6), in memory and written through to storage. */
export function createEdgeKeyStore(storage: Storage, now: () => number, logger: Logger): EdgeKeyStore {
  const keys = new Map<string, EdgeKey>();
  const bytes = new Map<string, Uint8Array>();
  const bindings = new Map<string, AgentNameBinding>();
  const serial = createSerialQueue();
  const iso = () => new Date(now()).toISOString();

  const remember = (key: EdgeKey) => {
    keys.set(key.keyId, key);
    const raw = fromBase64(key.publicKey);
    if (raw?.length === 32) bytes.set(key.keyId, raw);
    else bytes.delete(key.keyId);
  };

  return {
    async load() {
      keys.clear();
      bytes.clear();
      bindings.clear();
      const stored = await readAllValidated(storage, await storage.getKeys(KEY_PREFIX), EdgeKeySchema, logger);
      for (const { key: storageKey, value: key } of stored) if (storageKey === keyOf(key.keyId)) remember(key);
      const names = await readAllValidated(storage, await storage.getKeys(NAME_PREFIX), AgentNameBindingSchema, logger);
      for (const { key: storageKey, value: binding } of names)
        if (storageKey === nameOf(binding.agentName)) bindings.set(binding.agentName, binding);
    },
    get: (keyId) => keys.get(keyId),
    // Newest first; keys registered within one millisecond keep the newer first too (a stable sort
    // of the reversed registration order).
    list: () =>
      [...keys.values()].reverse().sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)),
    async register({ publicKey, keyId, label }) {
      if (keys.has(keyId)) return 'exists';
      const key: EdgeKey = { keyId, publicKey, label, createdAt: iso(), revokedAt: null };
      remember(key);
      await serial(() => storage.setItem(keyOf(keyId), key));
      return key;
    },
    async registerMany(authorized) {
      const added = new Map<string, EdgeKey>();
      for (const { publicKey, keyId, label } of authorized)
        if (!keys.has(keyId) && !added.has(keyId))
          added.set(keyId, { keyId, publicKey, label, createdAt: iso(), revokedAt: null });
      if (added.size === 0) return 0;
      for (const key of added.values()) remember(key);
      const items = [...added.values()].map((key) => ({ key: keyOf(key.keyId), value: key }));
      await serial(() => storage.setItems(items as { key: string; value: never }[]));
      return added.size;
    },
    async revoke(keyId) {
      const key = keys.get(keyId);
      if (!key) return undefined;
      if (key.revokedAt !== null) return key;
      const revoked = { ...key, revokedAt: iso() };
      remember(revoked);
      await serial(() => storage.setItem(keyOf(keyId), revoked));
      return revoked;
    },
    publicKeyBytes: (keyId) => bytes.get(keyId),
    bindingOf: (agentName) => bindings.get(agentName),
    namesOf: (keyId) =>
      [...bindings.values()].filter((binding) => binding.keyId === keyId).map((binding) => binding.agentName),
    async claimName(agentName, keyId) {
      const existing = bindings.get(agentName);
      if (existing) return existing.keyId === keyId ? 'bound' : 'taken';
      const binding: AgentNameBinding = { agentName, keyId, boundAt: iso() };
      bindings.set(agentName, binding);
      try {
        // Not through the serial queue: a name is written once (the map above decides who), so
        // writes of different names need no order, and a fleet's first sign-ins must not wait
        // for each other's writes one by one (bench edge-agents: 1,000 in a row behind its syncs).
        await storage.setItem(nameOf(agentName), binding);
      } catch (error) {
        // Not stored means not bound: a restart would otherwise give the name to another key.
        if (bindings.get(agentName) === binding) bindings.delete(agentName);
        throw error;
      }
      return 'bound';
    },
  };
}
