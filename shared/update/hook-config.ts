import { type EnvReaderContext, envBoolean, envInteger } from '../config/env-readers';

/**
 * DD_HOOKS_ENABLED (default false) and DD_HOOKS_TIMEOUT (seconds, default 60): whether dd.hook.pre /
 * dd.hook.post run. Read by the hub for its own containers and by each edge agent for the
 * containers on its host, each from its own environment (docs/updates.md "Hooks").
 */
export interface HookConfig {
  enabled: boolean;
  timeoutMs: number;
}

export const DEFAULT_HOOK_TIMEOUT_S = 60;

export function loadHookConfig(vars: EnvReaderContext): HookConfig {
  return {
    enabled: vars.get('DD_HOOKS_ENABLED', envBoolean, false),
    timeoutMs: vars.get('DD_HOOKS_TIMEOUT', envInteger(1, 3600), DEFAULT_HOOK_TIMEOUT_S) * 1000,
  };
}
