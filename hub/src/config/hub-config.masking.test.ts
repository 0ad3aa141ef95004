import { describe, expect, it } from 'vitest';
import { loadHubConfig, maskHubConfig } from './hub-config';

const noFiles = (path: string): string => {
  throw new Error(`no file ${path}`);
};

/** GET /api/v1/server's `configuration` (and the debug dump's): each value from a variable as the secret table shows it. */
describe('maskHubConfig', () => {
  it('shows URLs by scheme and host, secrets as ***, and no second factor at all (issue 33 item 1)', () => {
    const config = loadHubConfig(
      {
        DD_STORE_DRIVER: 'redis',
        DD_STORE_URL: 'redis://cache-user:store-pw-1a2b@cache:6379/3',
        DD_SERVER_METRICS_TOKEN: 'metrics-token-5e6f',
        DD_ICONS_SELFHST_URL: 'https://icons.example/icon-token-9f8e/svg',
        DD_RELEASE_NOTES_GITHUB_API_URL: 'https://ghe.example/api-path-7c6d',
        DD_RELEASE_NOTES_GITHUB_TOKEN: 'ghp-token-3c4d',
        DD_SECURITY_SCANNER: 'osv',
        DD_SECURITY_OSV_URL: 'https://dl.example/osv.zip?key=osv-key-2b3c',
        DD_AUTH_BASIC_BOB_USER: 'bob',
        DD_AUTH_BASIC_BOB_HASH:
          '$argon2id$v=19$m=64,t=1,p=1$Zml4dHVyZS1zYWx0LTE2Yg$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g',
        DD_AUTH_BASIC_BOB_TOTP: 'KRSXG5CTMVRXEZLUKN2XAZLDOJSXIZLU',
        DD_AUTH_BASIC_BOB_RECOVERY: 'rc-alpha-7a1f3c',
        DD_AUTH_OIDC_CORP_DISCOVERY: 'https://id.example/tenant-id-4d5e/.well-known/openid-configuration',
        DD_AUTH_OIDC_CORP_CLIENTID: 'dockwatch',
        DD_AUTH_OIDC_CORP_CLIENTSECRET: 'client-secret-6f7a',
        DD_AUTH_OIDC_CORP_REDIRECT: 'https://hub.example/api/v1/auth/oidc/corp/callback',
        DD_AGENT_NAS_HOST: 'nas.local',
        DD_AGENT_NAS_SECRET: 'agent-secret-8b9c',
      },
      noFiles,
    );
    const masked = maskHubConfig(config);
    const text = JSON.stringify(masked);
    for (const secret of [
      'store-pw-1a2b',
      'cache-user',
      'metrics-token-5e6f',
      'icon-token-9f8e',
      'api-path-7c6d',
      'ghp-token-3c4d',
      'osv-key-2b3c',
      'KRSXG5CTMVRXEZLUKN2XAZLDOJSXIZLU',
      'rc-alpha-7a1f3c',
      'tenant-id-4d5e',
      'client-secret-6f7a',
      'agent-secret-8b9c',
    ])
      expect(text, secret).not.toContain(secret);
    expect(masked['store']).toMatchObject({ url: 'redis://***@cache:6379/3' });
    expect(masked['icons']).toMatchObject({ bases: { selfhst: 'https://icons.example/***' } });
    expect(masked['releaseNotes']).toMatchObject({ githubApiUrl: 'https://ghe.example/***', githubToken: '***' });
    expect(masked['security']).toMatchObject({ osv: { url: 'https://dl.example/***' } });
    expect(masked['auth']).toEqual({
      basic: [{ id: 'bob', username: 'bob' }],
      oidc: [expect.objectContaining({ discovery: 'https://id.example/***', clientSecret: '***' })],
    });
    expect(masked['agents']).toEqual([expect.objectContaining({ host: 'nas.local', secret: '***' })]);
  });
});
