import { describe, expect, it } from 'vitest';
import { configErrorOf, variablesOf } from '../../../test/support/registry-variables';
import { createAcrProvider } from './acr';
import type { RegistryProviderContext } from './registry-provider';

const context: RegistryProviderContext = { now: Date.now, fetch: (input, init) => fetch(input, init) };
const CLIENT_ID = '00000000-1111-2222-3333-444444444444';
const CLIENT_SECRET = 'Q~EXAMPLEclientSECRETvalue';

const variables = (name: string, values: Record<string, string>) => variablesOf('acr', name, values);

describe('acr host matching', () => {
  const provider = createAcrProvider(variables('prod', { clientid: CLIENT_ID, clientsecret: CLIENT_SECRET }), context);

  it.each(['myregistry.azurecr.io', 'contoso.azurecr.cn', 'agency01.azurecr.us'])('serves %s', (host) =>
    expect(provider.matches(host)).toBe(true),
  );

  it.each([
    'azurecr.io',
    'my-registry.azurecr.io',
    'myregistry.azurecr.io.attacker.example',
    'evil.com',
    'abcd.azurecr.io',
  ])('does not serve %s', (host) => expect(provider.matches(host)).toBe(false));

  it('narrows to one registry with URL', () => {
    const narrowed = createAcrProvider(
      variables('prod', { url: 'https://myregistry.azurecr.io', login: 'myregistry', password: 'x' }),
      context,
    );
    expect(narrowed.matches('myregistry.azurecr.io')).toBe(true);
    expect(narrowed.matches('otherregistry.azurecr.io')).toBe(false);
  });
});

describe('acr credentials', () => {
  it('sends a service principal as basic credentials to the token flow', async () => {
    const provider = createAcrProvider(
      variables('prod', { clientid: CLIENT_ID, clientsecret: CLIENT_SECRET }),
      context,
    );
    const connection = await provider.connection('myregistry.azurecr.io');
    expect(connection.credentials).toEqual({ username: CLIENT_ID, password: CLIENT_SECRET });
    // Not a public registry: only the in-flight cap (decisions §7).
    expect(connection.rateLimit).toBeUndefined();
    expect(connection.concurrency).toBe(16);
  });

  it('sends an admin user or a repository-scoped token', async () => {
    const admin = createAcrProvider(variables('prod', { login: 'myregistry', password: 'admin-pass' }), context);
    expect((await admin.connection('myregistry.azurecr.io')).credentials).toEqual({
      username: 'myregistry',
      password: 'admin-pass',
    });
    const scoped = createAcrProvider(variables('prod', { login: 'pull-token', token: 'token-pass' }), context);
    expect((await scoped.connection('myregistry.azurecr.io')).credentials).toEqual({
      username: 'pull-token',
      password: 'token-pass',
    });
  });

  it('accepts no variables at all: anonymous', async () => {
    const provider = createAcrProvider({ type: 'acr', name: 'public', values: new Map() }, context);
    expect(provider.matches('myregistry.azurecr.io')).toBe(true);
    expect((await provider.connection('myregistry.azurecr.io')).credentials).toBeUndefined();
  });

  it.each([
    [{ clientid: CLIENT_ID }, 'DD_REGISTRY_ACR_PROD_CLIENTSECRET'],
    [{ clientsecret: CLIENT_SECRET }, 'DD_REGISTRY_ACR_PROD_CLIENTID'],
    [{ login: 'me' }, 'DD_REGISTRY_ACR_PROD_PASSWORD'],
    [{ password: 'x' }, 'DD_REGISTRY_ACR_PROD_LOGIN'],
    [{ login: 'me', password: 'x', token: 'y' }, 'DD_REGISTRY_ACR_PROD_TOKEN'],
    [{ clientid: CLIENT_ID, clientsecret: CLIENT_SECRET, login: 'me', password: 'x' }, 'DD_REGISTRY_ACR_PROD_CLIENTID'],
    [{ url: 'https://registry.example.com' }, 'DD_REGISTRY_ACR_PROD_URL'],
    [{ url: 'http://myregistry.azurecr.io' }, 'DD_REGISTRY_ACR_PROD_URL'],
    [{ tenantid: 'x' }, 'DD_REGISTRY_ACR_PROD_TENANTID'],
  ])('refuses %j, naming %s', (values, variable) => {
    const error = configErrorOf(() => createAcrProvider(variables('prod', values), context));
    expect(error.variable).toBe(variable);
    expect(error.message).not.toContain(CLIENT_SECRET);
  });

  it('masks every secret', () => {
    const provider = createAcrProvider(
      variables('prod', { clientid: CLIENT_ID, clientsecret: CLIENT_SECRET }),
      context,
    );
    expect(provider.maskedConfiguration()).toEqual({
      url: undefined,
      clientid: CLIENT_ID,
      login: undefined,
      clientsecret: '***',
      password: undefined,
      token: undefined,
    });
  });
});
