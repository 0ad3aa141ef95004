import { describe, expect, it } from 'vitest';
import { configErrorOf } from '../../../test/support/config-error-of';
import { loadHubConfig, maskHubConfig } from '../config/hub-config';
import { loadAuthProviders } from './basic-users';

const SECRET = 'client-secret-that-must-not-show';
const OIDC = {
  DD_AUTH_OIDC_CORP_DISCOVERY: 'https://id.example.test/.well-known/openid-configuration',
  DD_AUTH_OIDC_CORP_CLIENTID: 'dockwatch',
  DD_AUTH_OIDC_CORP_CLIENTSECRET: SECRET,
  DD_AUTH_OIDC_CORP_REDIRECT: 'https://hub.example.test/api/v1/auth/oidc/corp/callback',
};

const load = (env: Record<string, string>) => loadAuthProviders(new Map(Object.entries(env)));

const configError = (env: Record<string, string>) => configErrorOf(() => load(env));

describe('DD_AUTH_OIDC_* configuration', () => {
  it('reads a provider', () => {
    expect(load(OIDC).oidc).toEqual([
      {
        id: 'corp',
        discovery: OIDC.DD_AUTH_OIDC_CORP_DISCOVERY,
        clientId: 'dockwatch',
        clientSecret: SECRET,
        redirect: OIDC.DD_AUTH_OIDC_CORP_REDIRECT,
      },
    ]);
  });

  it.each([
    ['DD_AUTH_OIDC_CORP_DISCOVERY', 'http://id.example.test/.well-known/openid-configuration', 'http is refused'],
    ['DD_AUTH_OIDC_CORP_DISCOVERY', 'id.example.test', 'https://'],
    ['DD_AUTH_OIDC_CORP_DISCOVERY', 'https://user:pw@id.example.test/', 'credentials'],
    ['DD_AUTH_OIDC_CORP_REDIRECT', '/api/v1/auth/oidc/corp/callback', 'absolute'],
    ['DD_AUTH_OIDC_CORP_REDIRECT', 'ftp://hub.example.test/cb', 'absolute'],
  ])('refuses %s=%s, naming the variable', (variable, value, problem) => {
    const error = configError({ ...OIDC, [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).toContain(problem);
  });

  it.each(['DISCOVERY', 'CLIENTID', 'CLIENTSECRET', 'REDIRECT'])('requires _%s', (key) => {
    const env: Record<string, string> = { ...OIDC };
    delete env[`DD_AUTH_OIDC_CORP_${key}`];
    expect(configError(env).variable).toBe(`DD_AUTH_OIDC_CORP_${key}`);
  });

  it('refuses an unknown key and never quotes the secret in an error', () => {
    const error = configError({ ...OIDC, DD_AUTH_OIDC_CORP_SCOPE: 'openid' });
    expect(error.variable).toBe('DD_AUTH_OIDC_CORP_SCOPE');
    expect(error.message).toContain('_CLIENTSECRET');
    expect(configError({ ...OIDC, DD_AUTH_OIDC_CORP_DISCOVERY: 'http://x' }).message).not.toContain(SECRET);
  });

  it('ends anonymous mode and is masked in the configuration the API shows', () => {
    const config = loadHubConfig(OIDC, () => '');
    expect(config.anonymous).toBe(false);
    const shown = JSON.stringify(maskHubConfig(config));
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain('"clientSecret":"***"');
    expect(shown).toContain('"clientId":"dockwatch"');
  });
});
