import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistryClient } from '../../../shared/registry/create-registry-client';
import { RegistryError } from '../../../shared/registry/registry-error';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import { type PushedImage, pushImage } from '../../../test/support/registry/push-image';
import { startRegistry, type TestRegistry } from '../../../test/support/registry/start-registry';
import { configErrorOf, variablesOf } from '../../../test/support/registry-variables';
import { createGitlabProvider } from './gitlab';
import type { ProviderConnection, RegistryProviderContext } from './registry-provider';

const context: RegistryProviderContext = { now: Date.now, fetch: (input, init) => fetch(input, init) };
const TOKEN = 'glpat-EXAMPLEexampleEXAMPLE';

const variables = (name: string, values: Record<string, string>) => variablesOf('gitlab', name, values);

describe('the built-in gitlab instance', () => {
  it('serves registry.gitlab.com anonymously and vouches for gitlab.com as its token realm', async () => {
    const provider = createGitlabProvider({ type: 'gitlab', name: 'public', values: new Map() }, context);
    expect(provider.matches('registry.gitlab.com')).toBe(true);
    expect(provider.matches('gitlab.com')).toBe(false);
    expect(provider.matches('registry.gitlab.com.attacker.example')).toBe(false);
    const connection = await provider.connection('registry.gitlab.com');
    expect(connection).toMatchObject({
      insecure: false,
      trustedRealmHosts: ['gitlab.com'],
      rateLimit: { ratePerSecond: 5, burst: 10 },
    });
    expect(connection.credentials).toBeUndefined();
  });
});

describe('gitlab options', () => {
  it('sends login and token as the credentials of the token request', async () => {
    const provider = createGitlabProvider(variables('work', { login: 'deploy-token-1', token: TOKEN }), context);
    const connection = await provider.connection('registry.gitlab.com');
    expect(connection.credentials).toEqual({ username: 'deploy-token-1', password: TOKEN });
    expect(connection.trustedRealmHosts).toEqual(['gitlab.com']);
  });

  it('reaches a self-managed registry, trusting the instance named by AUTHURL', async () => {
    const provider = createGitlabProvider(
      variables('corp', {
        url: 'https://registry.corp.example:5050/',
        authurl: 'https://git.corp.example.org/gitlab',
        login: 'me',
        token: TOKEN,
      }),
      context,
    );
    expect(provider.matches('registry.corp.example:5050')).toBe(true);
    expect(provider.matches('registry.gitlab.com')).toBe(false);
    const connection = await provider.connection('registry.corp.example:5050');
    expect(connection).toMatchObject({ insecure: false, trustedRealmHosts: ['git.corp.example.org'], concurrency: 16 });
    // A self-hosted registry gets only the in-flight cap (decisions §7).
    expect(connection.rateLimit).toBeUndefined();
  });

  it('trusts only the registry domain itself when a self-managed instance has no AUTHURL', async () => {
    const provider = createGitlabProvider(variables('corp', { url: 'http://registry.corp.example' }), context);
    const connection = await provider.connection('registry.corp.example');
    expect(connection).toMatchObject({ insecure: true, trustedRealmHosts: [] });
  });

  it('refuses half a credential pair, naming the missing variable', () => {
    expect(configErrorOf(() => createGitlabProvider(variables('work', { login: 'me' }), context)).variable).toBe(
      'DD_REGISTRY_GITLAB_WORK_TOKEN',
    );
    const error = configErrorOf(() => createGitlabProvider(variables('my-work', { token: TOKEN }), context));
    expect(error.variable).toBe('DD_REGISTRY_GITLAB_MY_WORK_LOGIN');
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses unknown keys and malformed URLs, naming the variable', () => {
    const unknown = configErrorOf(() =>
      createGitlabProvider(variables('work', { login: 'me', password: TOKEN }), context),
    );
    expect(unknown.variable).toBe('DD_REGISTRY_GITLAB_WORK_PASSWORD');
    expect(unknown.message).toContain('url, authurl, login, token');
    expect(
      configErrorOf(() => createGitlabProvider(variables('work', { url: 'registry.corp.example' }), context)).variable,
    ).toBe('DD_REGISTRY_GITLAB_WORK_URL');
    expect(
      configErrorOf(() => createGitlabProvider(variables('work', { url: 'https://r.example/v2/' }), context)).variable,
    ).toBe('DD_REGISTRY_GITLAB_WORK_URL');
    expect(
      configErrorOf(() => createGitlabProvider(variables('work', { authurl: 'ftp://git.example' }), context)).variable,
    ).toBe('DD_REGISTRY_GITLAB_WORK_AUTHURL');
  });

  it('masks the token', () => {
    const provider = createGitlabProvider(variables('work', { login: 'me', token: TOKEN }), context);
    expect(provider.maskedConfiguration()).toEqual({
      url: 'https://registry.gitlab.com',
      authurl: 'https://gitlab.com',
      login: 'me',
      token: '***',
    });
    expect(JSON.stringify(provider.maskedConfiguration())).not.toContain(TOKEN);
  });

  it('takes endpoint overrides for the default instance', async () => {
    const provider = createGitlabProvider({ type: 'gitlab', name: 'public', values: new Map() }, context, {
      registryUrl: 'http://127.0.0.1:5000',
      authUrl: 'http://localhost:5001',
    });
    expect(provider.matches('127.0.0.1:5000')).toBe(true);
    expect(await provider.connection('127.0.0.1:5000')).toMatchObject({
      insecure: true,
      trustedRealmHosts: ['localhost'],
    });
  });
});

/**
 * The real test bed: distribution 2.8 with a Bearer token service on another port, the shape of a
 * self-managed GitLab (registry on one port, `/jwt/auth` on the instance). The registry is named
 * `localhost` while the realm is `127.0.0.1`, so the realm is trusted only through AUTHURL.
 */
describe('gitlab provider against a real token-auth registry', () => {
  let registry: TestRegistry;
  let pushed: PushedImage;
  let authUrl: string;

  beforeAll(async () => {
    registry = await startRegistry({ variant: 'token', users: { 'deploy-token-1': TOKEN } });
    pushed = await pushImage(registry, { repository: 'group/project', tags: ['1.0'] });
    authUrl = new URL(registry.tokenServer!.url).origin;
  });
  afterAll(() => registry?.stop());

  function connect(connection: ProviderConnection, host: string) {
    return createRegistryClient({
      registry: host,
      credentials: connection.credentials,
      insecure: connection.insecure ?? false,
      ...(connection.trustedRealmHosts && { trustedRealmHosts: connection.trustedRealmHosts }),
      limiter: createConcurrencyLimiter(connection.concurrency),
    });
  }

  async function headWith(values: Record<string, string>) {
    const host = `localhost:${new URL(registry.url).port}`;
    const provider = createGitlabProvider(variables('selfmanaged', { url: `http://${host}`, ...values }), context);
    const client = connect(await provider.connection(host), host);
    return client.headManifest('group/project', '1.0');
  }

  it('reads a pushed tag with the login and token', async () => {
    const before = registry.tokenServer!.log.length;
    expect((await headWith({ authurl: authUrl, login: 'deploy-token-1', token: TOKEN })).digest).toBe(pushed.digest);
    const requests = registry.tokenServer!.log.slice(before);
    expect(requests).toContainEqual({ user: 'deploy-token-1', scopes: ['repository:group/project:pull'], status: 200 });
  });

  it('reports a wrong token as credentials-rejected', async () => {
    const error = await headWith({ authurl: authUrl, login: 'deploy-token-1', token: 'glpat-wrong' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).kind).toBe('credentials-rejected');
    expect((error as RegistryError).message).not.toContain('glpat-wrong');
  });

  it('does not send the token to a realm nobody vouched for', async () => {
    const before = registry.tokenServer!.log.length;
    const error = await headWith({ login: 'deploy-token-1', token: TOKEN }).catch((caught: unknown) => caught);
    expect((error as RegistryError).kind).toBe('protocol');
    expect((error as RegistryError).message).toContain('not trusted');
    expect(registry.tokenServer!.log.length).toBe(before);
  });
});
