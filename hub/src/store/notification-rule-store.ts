import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import {
  defaultNotificationRules,
  NOTIFICATION_RULE_IDS,
  type NotificationRule,
  type NotificationRuleId,
  type NotificationRulePatch,
  NotificationRuleSchema,
} from '../../../shared/schemas/notification-rule';
import { createSerialQueue, readValidated } from './validated-storage';

const ruleKey = (id: NotificationRuleId) => `notifications:rules:${id}`;

export interface NotificationRuleStore {
  load(): Promise<void>;
  list(): NotificationRule[];
  get(id: string): NotificationRule | undefined;
  patch(id: NotificationRuleId, patch: NotificationRulePatch): Promise<NotificationRule>;
}

export function isNotificationRuleId(id: string): id is NotificationRuleId {
  return (NOTIFICATION_RULE_IDS as readonly string[]).includes(id);
}

export function createNotificationRuleStore(storage: Storage, logger: Logger): NotificationRuleStore {
  const rules = new Map<NotificationRuleId, NotificationRule>(
    defaultNotificationRules().map((rule) => [rule.id, rule]),
  );
  const serial = createSerialQueue();
  const copy = (rule: NotificationRule): NotificationRule => structuredClone(rule);
  return {
    async load() {
      for (const id of NOTIFICATION_RULE_IDS) {
        const stored = await readValidated(storage, ruleKey(id), NotificationRuleSchema, logger);
        if (stored && stored.id === id) rules.set(id, stored);
      }
    },
    list: () => NOTIFICATION_RULE_IDS.map((id) => copy(rules.get(id) as NotificationRule)),
    get: (id) => (isNotificationRuleId(id) ? copy(rules.get(id) as NotificationRule) : undefined),
    patch: (id, patch) =>
      serial(async () => {
        const next = copy(rules.get(id) as NotificationRule);
        if (patch.enabled !== undefined) next.enabled = patch.enabled;
        if (patch.triggers !== undefined) next.triggers = [...new Set(patch.triggers)];
        if (patch.bellEnabled !== undefined) next.bellEnabled = patch.bellEnabled;
        if (patch.bellThreshold !== undefined) next.bellThreshold = patch.bellThreshold;
        if (patch.templates !== undefined) next.templates = patch.templates;
        await storage.setItem(ruleKey(id), next);
        rules.set(id, next);
        return copy(next);
      }),
  };
}
