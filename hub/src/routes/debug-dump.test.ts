import { describe, expect, it } from 'vitest';
import { loadHubConfig } from '../config/hub-config';
import { configuredSecrets, redactDeep } from './debug-dump';

const noFiles = (path: string): string => {
  throw new Error(`no file ${path}`);
};

describe('debug dump redaction', () => {
  it('masks strings under keys that name secrets, keeps ids and flags', () => {
    expect(
      redactDeep({ password: 'p', apiToken: 'x', keyId: 'abc', nested: [{ secret: 's', count: 2, token: true }] }, []),
    ).toEqual({ password: '***', apiToken: '***', keyId: 'abc', nested: [{ secret: '***', count: 2, token: true }] });
  });

  it('strips URL credentials anywhere in free text', () => {
    expect(redactDeep({ msg: 'failed to reach redis://admin:pw@cache:6379/0 and https://u@x.test' }, [])).toEqual({
      msg: 'failed to reach redis://***@cache:6379/0 and https://***@x.test',
    });
  });

  it('replaces every configured secret wherever it landed, webhook URL paths included', () => {
    const config = loadHubConfig(
      {
        DD_STORE_DRIVER: 'memory',
        DD_SERVER_WEBHOOK_TOKEN: 'hook-token-1',
        DD_NOTIFICATION_HTTP_A_URL: 'https://hooks.example.test/services/PATH-TOKEN-9',
        DD_NOTIFICATION_HTTP_A_THRESHOLD: 'all',
      },
      noFiles,
    );
    const secrets = configuredSecrets(config);
    expect(secrets).toContain('hook-token-1');
    expect(secrets).toContain('/services/PATH-TOKEN-9');
    expect(secrets).not.toContain('all');
    expect(
      redactDeep(
        ['got hook-token-1 from a client', { url: 'https://hooks.example.test/services/PATH-TOKEN-9' }],
        secrets,
      ),
    ).toEqual(['got *** from a client', { url: '***' }]);
    expect(redactDeep({ msg: 'POST /services/PATH-TOKEN-9 answered 500' }, secrets)).toEqual({
      msg: 'POST *** answered 500',
    });
  });

  it('scrubs every value the secret table does not know to be plain, from the variables the hub runs with', () => {
    const config = loadHubConfig({ DD_STORE_DRIVER: 'memory' }, noFiles);
    const secrets = configuredSecrets(
      config,
      new Map([
        ['DD_REGISTRY_HUB_PRIVATE_PASSWORD', 'registry-pw-77a1'],
        ['DD_AUTH_BASIC_BOB_TOTP', 'KRSXG5CTMVRXEZLUKN2XAZLDOJSXIZLU'],
        ['DD_SECURITY_OSV_URL', 'https://dl.example/t0ken-path/osv.zip?key=k-1234567'],
        ['DD_REGISTRY_GITLAB_WORK_URL', 'https://gitlab.example/api?private_token=pt-998877'],
        ['DD_SOMETHING_UNKNOWN', 'unclassified-value'],
        ['DD_LOG_LEVEL', 'warning-level'],
      ]),
    );
    for (const secret of [
      'registry-pw-77a1',
      'KRSXG5CTMVRXEZLUKN2XAZLDOJSXIZLU',
      '/t0ken-path/osv.zip?key=k-1234567',
      '?private_token=pt-998877',
      'unclassified-value',
    ])
      expect(secrets).toContain(secret);
    expect(secrets).not.toContain('warning-level');
    // An endpoint is no secret itself: its host stays readable in the dump, its query does not.
    expect(secrets.filter((secret) => secret.includes('gitlab.example'))).toEqual([]);
  });
});
