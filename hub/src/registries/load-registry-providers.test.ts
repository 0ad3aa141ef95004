import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { loadRegistryProviders, loadRegistryProvidersFromEnv } from './load-registry-providers';

const context = { now: () => 0, fetch: async () => new Response(null, { status: 599 }) };

describe('loadRegistryProviders', () => {
  it('refuses an unknown type, naming the variable and listing the known types', async () => {
    const failure = loadRegistryProviders([['DD_REGISTRY_DOCKERHUB_MAIN_LOGIN', 'x']], context);
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(
      /^DD_REGISTRY_DOCKERHUB_MAIN_LOGIN: unknown registry type "dockerhub"; known: hub, ghcr, .*custom/,
    );
  });

  it('reads DD_REGISTRY_INSECURE as hosts for the generic fallback, and secrets from __FILE', async () => {
    const loaded = await loadRegistryProvidersFromEnv(
      {
        DD_REGISTRY_INSECURE: 'reg.lan:5000, other.lan',
        DD_REGISTRY_CUSTOM_LAN_URL: 'https://reg.lan',
        DD_REGISTRY_CUSTOM_LAN_LOGIN: 'u',
        DD_REGISTRY_CUSTOM_LAN_PASSWORD__FILE: '/secret',
      },
      (path) => (path === '/secret' ? 'from-file\n' : ''),
      context,
    );
    expect(await loaded.fallback.connection('reg.lan:5000')).toMatchObject({ insecure: true });
    expect(await loaded.fallback.connection('elsewhere:5000')).toMatchObject({ insecure: false });
    expect((await loaded.configured[0]?.connection('reg.lan'))?.credentials).toEqual({
      username: 'u',
      password: 'from-file',
    });
    expect(loaded.builtIn.map((provider) => `${provider.type}.${provider.name}`)).toContain('hub.public');
  });
});
