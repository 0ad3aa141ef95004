import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import {
  type GroupPolicy,
  type GroupPolicyBody,
  GroupPolicySchema,
  type GroupPolicyScope,
} from '../../../shared/schemas/group-policy';
import { readValidated } from '../store/validated-storage';

const PREFIX = 'group-policies';
// Group names come from labels: encoded so each stays one key segment on every driver.
const keyOf = (scope: GroupPolicyScope, name: string) => `${PREFIX}:${scope}:${encodeURIComponent(name)}`;
const idOf = (scope: GroupPolicyScope, name: string) => `${scope}\u0000${name}`;

/** Group and agent policies in the hub's storage, one record each, mirrored in memory (reads cost nothing). */
export interface GroupPolicyStore {
  load(): Promise<void>;
  get(scope: GroupPolicyScope, name: string): GroupPolicy | undefined;
  /** Agents first, then groups, each by name. */
  all(): GroupPolicy[];
  /** Replaces the whole policy; answers it. */
  set(scope: GroupPolicyScope, name: string, body: GroupPolicyBody, at: string): Promise<GroupPolicy>;
  /** Answers the removed policy, undefined when there was none. */
  clear(scope: GroupPolicyScope, name: string): Promise<GroupPolicy | undefined>;
}

export function createGroupPolicyStore(storage: Storage, logger: Logger): GroupPolicyStore {
  const policies = new Map<string, GroupPolicy>();
  return {
    async load() {
      policies.clear();
      const keys = await storage.getKeys(PREFIX);
      for (const key of keys) {
        const policy = await readValidated(storage, key, GroupPolicySchema, logger);
        if (policy) policies.set(idOf(policy.scope, policy.name), policy);
      }
    },
    get: (scope, name) => policies.get(idOf(scope, name)),
    all: () =>
      [...policies.values()].sort((a, b) =>
        a.scope === b.scope ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.scope === 'agent' ? -1 : 1,
      ),
    async set(scope, name, body, at) {
      const before = policies.get(idOf(scope, name));
      const { rollout, ...rest } = body;
      const policy: GroupPolicy = {
        scope,
        name,
        ...rest,
        ...(rollout && {
          rollout: {
            ...(rollout.canaryHost !== undefined && { canaryHost: rollout.canaryHost }),
            waveSize: rollout.waveSize,
            pauseSeconds: rollout.pauseSeconds,
            automatic: rollout.automatic,
          },
        }),
        createdAt: before?.createdAt ?? at,
        updatedAt: at,
      };
      await storage.setItem(keyOf(scope, name), policy);
      policies.set(idOf(scope, name), policy);
      return policy;
    },
    async clear(scope, name) {
      const before = policies.get(idOf(scope, name));
      if (!before) return undefined;
      await storage.removeItem(keyOf(scope, name));
      policies.delete(idOf(scope, name));
      return before;
    },
  };
}
