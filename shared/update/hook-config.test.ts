import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error';
import { EnvReaderContext } from '../config/env-readers';
import { loadHookConfig } from './hook-config';

const load = (vars: Record<string, string>) => loadHookConfig(new EnvReaderContext(new Map(Object.entries(vars))));

describe('DD_HOOKS_ENABLED and DD_HOOKS_TIMEOUT', () => {
  it('are off with 60 s by default, and read when set', () => {
    expect(load({})).toEqual({ enabled: false, timeoutMs: 60_000 });
    expect(load({ DD_HOOKS_ENABLED: 'true', DD_HOOKS_TIMEOUT: '5' })).toEqual({ enabled: true, timeoutMs: 5_000 });
  });

  it('a bad value names its variable', () => {
    expect(() => load({ DD_HOOKS_TIMEOUT: '0' })).toThrow(ConfigError);
    expect(() => load({ DD_HOOKS_ENABLED: 'maybe' })).toThrow(/DD_HOOKS_ENABLED/);
  });
});
