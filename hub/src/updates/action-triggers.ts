import { ConfigError } from '../../../shared/config/config-error';
import { EnvReaderContext, envBoolean, envInteger, envText } from '../../../shared/config/env-readers';
import { groupProviderVariables, type ProviderVariables } from '../config/provider-variables';
import { quotableValue } from '../config/secret-variables';

export const ACTION_PREFIX = 'DD_ACTION_';
export const ACTION_TRIGGER_TYPES = ['docker'] as const;

/**
 * A Docker action trigger, `DD_ACTION_DOCKER_<NAME>_*` (http-interface §9.8): what updates a container of its
 * watchers, and how carefully.
 */
export interface DockerActionTrigger {
  /** `docker.<name>`, as trigger records name it (http-interface §2.12). */
  id: string;
  type: 'docker';
  name: string;
  /** Backups (http-interface §2.7) kept per container; 0 keeps none (and rollback has nothing to go back to). */
  backupCount: number;
  /** Remove an image once no kept backup and no container needs it any more. */
  prune: boolean;
  /** The health gate's limit, in milliseconds. */
  healthTimeoutMs: number;
  /** Auto mode: its containers are updated by themselves after detection (auto-update-policy.ts). */
  auto: boolean;
  /** The watchers whose containers it updates; undefined: every watcher. */
  watchers: string[] | undefined;
  /** `COMPOSE=false`: compose files of its containers are left alone (absent: they are brought to the new image). */
  compose?: false;
}

export const ACTION_KEYS = ['backupcount', 'prune', 'healthtimeout', 'auto', 'watcher', 'compose'] as const;
export const DEFAULT_BACKUP_COUNT = 3;
export const DEFAULT_HEALTH_TIMEOUT_S = 120;

function parseTrigger(group: ProviderVariables): DockerActionTrigger {
  const raw = new Map<string, string>();
  for (const [key, { variable, value }] of group.values) {
    if (!(ACTION_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(
        variable,
        `unknown option of a docker action trigger; known: ${ACTION_KEYS.map((k) => k.toUpperCase()).join(', ')}`,
      );
    }
    raw.set(variable, value);
  }
  const vars = new EnvReaderContext(raw, quotableValue);
  const name = (key: (typeof ACTION_KEYS)[number]) =>
    group.values.get(key)?.variable ?? `${ACTION_PREFIX}DOCKER_${group.name.toUpperCase()}_${key}`;
  const watchers = vars
    .optional(name('watcher'), envText)
    ?.split(',')
    .map((watcher) => watcher.trim().toLowerCase())
    .filter((watcher) => watcher !== '');
  return {
    id: `docker.${group.name}`,
    type: 'docker',
    name: group.name,
    backupCount: vars.get(name('backupcount'), envInteger(0, 100), DEFAULT_BACKUP_COUNT),
    prune: vars.get(name('prune'), envBoolean, false),
    healthTimeoutMs: vars.get(name('healthtimeout'), envInteger(1, 3600), DEFAULT_HEALTH_TIMEOUT_S) * 1000,
    auto: vars.get(name('auto'), envBoolean, false),
    watchers: watchers && watchers.length > 0 ? watchers : undefined,
    ...(!vars.get(name('compose'), envBoolean, true) && { compose: false as const }),
  };
}

/** Every `DD_ACTION_<TYPE>_<NAME>_<KEY>`; an unknown TYPE or KEY, or a bad value, names its variable. */
export function loadActionTriggers(vars: Iterable<[string, string]>): DockerActionTrigger[] {
  return groupProviderVariables(vars, ACTION_PREFIX).map((group) => {
    if (!(ACTION_TRIGGER_TYPES as readonly string[]).includes(group.type)) {
      const variable = group.values.values().next().value?.variable ?? ACTION_PREFIX;
      throw new ConfigError(
        variable,
        `unknown action trigger type "${group.type}"; known: ${ACTION_TRIGGER_TYPES.join(', ')}`,
      );
    }
    return parseTrigger(group);
  });
}

/** The trigger record of http-interface §2.12 (nothing secret in a docker action's configuration). */
export function describeActionTrigger(trigger: DockerActionTrigger) {
  return {
    id: trigger.id,
    type: trigger.type,
    name: trigger.name,
    configuration: {
      backupcount: trigger.backupCount,
      prune: trigger.prune,
      healthtimeout: trigger.healthTimeoutMs / 1000,
      auto: trigger.auto,
      ...(trigger.watchers && { watcher: trigger.watchers.join(',') }),
      // Listed only when turned off, as the watcher list only when set.
      ...(trigger.compose === false && { compose: false }),
    },
  };
}

export function triggerCoversWatcher(trigger: DockerActionTrigger, watcher: string): boolean {
  return trigger.watchers === undefined || trigger.watchers.includes(watcher.toLowerCase());
}
