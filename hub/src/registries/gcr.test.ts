import { describe, expect, it } from 'vitest';
import { configErrorOf, variablesOf } from '../../../test/support/registry-variables';
import { createGcrProvider } from './gcr';
import type { RegistryProviderContext } from './registry-provider';

const context: RegistryProviderContext = { now: Date.now, fetch: (input, init) => fetch(input, init) };
// The shape of a key file from the Cloud console, with a placeholder private key.
const PRIVATE_KEY =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQEXAMPLE\n-----END PRIVATE KEY-----\n';
const JSON_KEY = JSON.stringify({
  type: 'service_account',
  project_id: 'my-project',
  private_key_id: '0123456789abcdef',
  private_key: PRIVATE_KEY,
  client_email: 'watcher@my-project.iam.gserviceaccount.com',
  client_id: '100000000000000000000',
});
const ACCESS_TOKEN = 'ya29.a0AfH6SMEXAMPLEaccessTOKEN';

const variables = (name: string, values: Record<string, string>) => variablesOf('gcr', name, values);

describe('gcr host matching', () => {
  const provider = createGcrProvider({ type: 'gcr', name: 'public', values: new Map() }, context);

  it.each([
    'gcr.io',
    'us.gcr.io',
    'eu.gcr.io',
    'asia.gcr.io',
    'mirror.gcr.io',
    'us-docker.pkg.dev',
    'europe-west1-docker.pkg.dev',
  ])('serves %s', (host) => expect(provider.matches(host)).toBe(true));

  it.each([
    'evil-docker.pkg.dev.attacker.com',
    'gcr.io.attacker.com',
    'evilgcr.io',
    'a.b.gcr.io',
    'docker.pkg.dev',
    'pkg.dev',
    'us-maven.pkg.dev',
    'us-docker.pkg.dev:443',
    'ghcr.io',
  ])('does not serve %s', (host) => expect(provider.matches(host)).toBe(false));
});

describe('the built-in gcr instance', () => {
  it('reaches public images anonymously with the public-registry budget', async () => {
    const provider = createGcrProvider({ type: 'gcr', name: 'public', values: new Map() }, context);
    for (const host of ['gcr.io', 'us-docker.pkg.dev']) {
      const connection = await provider.connection(host);
      expect(connection.credentials).toBeUndefined();
      expect(connection.rateLimit).toEqual({ ratePerSecond: 5, burst: 10 });
    }
    expect(provider.maskedConfiguration()).toEqual({
      login: undefined,
      serviceAccount: undefined,
      password: undefined,
      token: undefined,
    });
  });
});

describe('gcr credentials', () => {
  it('sends a service-account JSON key as _json_key, the documented basic-auth form', async () => {
    const provider = createGcrProvider(variables('prod', { password: JSON_KEY }), context);
    expect((await provider.connection('europe-west1-docker.pkg.dev')).credentials).toEqual({
      username: '_json_key',
      password: JSON_KEY,
    });
  });

  it('accepts LOGIN=_json_key as Google spells it out', async () => {
    const provider = createGcrProvider(variables('prod', { login: '_json_key', password: JSON_KEY }), context);
    expect((await provider.connection('gcr.io')).credentials?.username).toBe('_json_key');
  });

  it('sends an OAuth access token as oauth2accesstoken', async () => {
    const provider = createGcrProvider(variables('prod', { token: ACCESS_TOKEN }), context);
    expect((await provider.connection('gcr.io')).credentials).toEqual({
      username: 'oauth2accesstoken',
      password: ACCESS_TOKEN,
    });
  });

  it('refuses a password that is not a JSON key, naming the variable and never quoting it', () => {
    for (const password of [
      'not json at all',
      '{"client_email":"a@b.c"}',
      `{"private_key":${JSON.stringify(PRIVATE_KEY)}}`,
      '[1,2]',
    ]) {
      const error = configErrorOf(() => createGcrProvider(variables('prod', { password }), context));
      expect(error.variable).toBe('DD_REGISTRY_GCR_PROD_PASSWORD');
      expect(error.message).toContain('client_email and private_key');
      expect(error.message).not.toContain(password.slice(0, 8));
    }
  });

  it('refuses conflicting settings and unknown keys, naming the variable', () => {
    expect(
      configErrorOf(() => createGcrProvider(variables('prod', { password: JSON_KEY, token: ACCESS_TOKEN }), context))
        .variable,
    ).toBe('DD_REGISTRY_GCR_PROD_TOKEN');
    expect(
      configErrorOf(() =>
        createGcrProvider(variables('prod', { login: 'oauth2accesstoken', password: JSON_KEY }), context),
      ).variable,
    ).toBe('DD_REGISTRY_GCR_PROD_LOGIN');
    expect(configErrorOf(() => createGcrProvider(variables('prod', { login: '_json_key' }), context)).variable).toBe(
      'DD_REGISTRY_GCR_PROD_LOGIN',
    );
    expect(
      configErrorOf(() => createGcrProvider(variables('prod', { login: 'alice', token: ACCESS_TOKEN }), context))
        .variable,
    ).toBe('DD_REGISTRY_GCR_PROD_LOGIN');
    const unknown = configErrorOf(() => createGcrProvider(variables('prod', { privatekey: PRIVATE_KEY }), context));
    expect(unknown.variable).toBe('DD_REGISTRY_GCR_PROD_PRIVATEKEY');
    expect(unknown.message).toContain('login, password, token');
  });

  it('masks the key and the token, showing only the service account', () => {
    const withKey = createGcrProvider(variables('prod', { password: JSON_KEY }), context).maskedConfiguration();
    expect(withKey).toEqual({
      login: '_json_key',
      serviceAccount: 'watcher@my-project.iam.gserviceaccount.com',
      password: '***',
      token: undefined,
    });
    expect(JSON.stringify(withKey)).not.toContain('PRIVATE KEY');
    const withToken = createGcrProvider(variables('prod', { token: ACCESS_TOKEN }), context).maskedConfiguration();
    expect(JSON.stringify(withToken)).not.toContain(ACCESS_TOKEN);
  });
});
