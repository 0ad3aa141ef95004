import { describe, expect, it } from 'vitest';
import { variablesFromEnv } from '../../../test/support/registry-variables';
import type { ProviderVariables } from '../config/provider-variables';
import { createQuayProvider } from './quay';
import type { RegistryProviderContext, RegistryProviderFactory } from './registry-provider';

const PUBLIC: ProviderVariables = { type: 'quay', name: 'public', values: new Map() };
const context: RegistryProviderContext = { now: Date.now, fetch: (input, init) => fetch(input, init) };

describe('quay provider', () => {
  it('is an anonymous built-in for quay.io with the public budget and no trusted dates', async () => {
    const factory: RegistryProviderFactory = createQuayProvider;
    const provider = factory(PUBLIC, context);
    expect(provider.matches('quay.io')).toBe(true);
    expect(provider.matches('quay.io.example.com')).toBe(false);
    expect(provider.publishedAt).toBeUndefined();
    expect(await provider.connection('quay.io')).toEqual({
      insecure: false,
      caFile: undefined,
      rateLimit: { ratePerSecond: 5, burst: 10 },
      concurrency: 16,
    });
  });

  it('takes a robot account with its token, masked', async () => {
    const provider = createQuayProvider(
      variablesFromEnv({ DD_REGISTRY_QUAY_CI_LOGIN: 'acme+ci', DD_REGISTRY_QUAY_CI_TOKEN: 'ROBOTTOKEN' }),
      context,
    );
    expect((await provider.connection('quay.io')).credentials).toEqual({ username: 'acme+ci', password: 'ROBOTTOKEN' });
    expect(provider.maskedConfiguration()).toEqual({
      login: 'acme+ci',
      password: undefined,
      token: '***',
      ratelimit: undefined,
    });
    expect(JSON.stringify(provider.maskedConfiguration())).not.toContain('ROBOTTOKEN');
  });

  it.each([
    [{ DD_REGISTRY_QUAY_CI_LOGIN: 'acme+ci' }, 'DD_REGISTRY_QUAY_CI_LOGIN'],
    [{ DD_REGISTRY_QUAY_CI_TOKEN: 'x' }, 'DD_REGISTRY_QUAY_CI_TOKEN'],
    [{ DD_REGISTRY_QUAY_CI_USER: 'x' }, 'DD_REGISTRY_QUAY_CI_USER'],
    [{ DD_REGISTRY_QUAY_CI_CONCURRENCY: 'lots' }, 'DD_REGISTRY_QUAY_CI_CONCURRENCY'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => createQuayProvider(variablesFromEnv(env), context)).toThrow(new RegExp(`^${variable}: `));
  });

  it('takes _RATELIMIT and _CONCURRENCY', async () => {
    const provider = createQuayProvider(
      variablesFromEnv({ DD_REGISTRY_QUAY_CI_RATELIMIT: '3/s', DD_REGISTRY_QUAY_CI_CONCURRENCY: '2' }),
      context,
    );
    expect(await provider.connection('quay.io')).toMatchObject({
      rateLimit: { ratePerSecond: 3, burst: 15 },
      concurrency: 2,
    });
  });
});
