import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { loadHubConfig, maskHubConfig } from '../config/hub-config';

const files: Record<string, string> = { '/run/secrets/hook': 'from-file\n' };
const load = (env: Record<string, string>) =>
  loadHubConfig({ DD_STORE_DRIVER: 'memory', ...env }, (path) => {
    const content = files[path];
    if (content === undefined) throw new Error('no such file');
    return content;
  });

describe('webhook configuration (DD_SERVER_WEBHOOK_*)', () => {
  it('is disabled by default, with no token and no secret', () => {
    expect(load({}).webhooks).toEqual({ enabled: false, tokens: { kind: 'none' }, secret: undefined });
  });

  it('reads the shared token, the secret and their __FILE forms', () => {
    const config = load({
      DD_SERVER_WEBHOOK_ENABLED: 'true',
      DD_SERVER_WEBHOOK_TOKEN__FILE: '/run/secrets/hook',
      DD_SERVER_WEBHOOK_SECRET: 's3',
    });
    expect(config.webhooks).toEqual({ enabled: true, tokens: { kind: 'shared', token: 'from-file' }, secret: 's3' });
  });

  it('reads the three endpoint tokens, which win over the shared one', () => {
    const config = load({
      DD_SERVER_WEBHOOK_TOKEN: 'shared',
      DD_SERVER_WEBHOOK_TOKENS_WATCHALL: 'a',
      DD_SERVER_WEBHOOK_TOKENS_WATCH: 'b',
      DD_SERVER_WEBHOOK_TOKENS_UPDATE: 'c',
    });
    expect(config.webhooks.tokens).toEqual({
      kind: 'per-endpoint',
      tokens: { watchall: 'a', watch: 'b', update: 'c' },
    });
  });

  it('refuses a partial set of endpoint tokens, naming the missing variables', () => {
    let error: unknown;
    try {
      load({ DD_SERVER_WEBHOOK_TOKENS_WATCH: 'b' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('DD_SERVER_WEBHOOK_TOKENS_WATCHALL');
    expect((error as Error).message).toContain(
      'missing: DD_SERVER_WEBHOOK_TOKENS_WATCHALL, DD_SERVER_WEBHOOK_TOKENS_UPDATE',
    );
    expect(() => load({ DD_SERVER_WEBHOOK_TOKENS_WATCHALL: 'a', DD_SERVER_WEBHOOK_TOKENS_WATCH: 'b' })).toThrow(
      /^DD_SERVER_WEBHOOK_TOKENS_UPDATE: .*missing: DD_SERVER_WEBHOOK_TOKENS_UPDATE\)$/,
    );
  });

  it('refuses a bad DD_SERVER_WEBHOOK_ENABLED and an empty secret, without echoing the secret', () => {
    expect(() => load({ DD_SERVER_WEBHOOK_ENABLED: 'sometimes' })).toThrow(/^DD_SERVER_WEBHOOK_ENABLED: /);
    expect(() => load({ DD_SERVER_WEBHOOK_SECRET: '' })).toThrow(/^DD_SERVER_WEBHOOK_SECRET: must not be empty$/);
  });

  it('masks every token and the secret in the configuration the API shows', () => {
    const shown = JSON.stringify(
      maskHubConfig(
        load({
          DD_SERVER_WEBHOOK_ENABLED: 'true',
          DD_SERVER_WEBHOOK_TOKENS_WATCHALL: 'tok-all-123',
          DD_SERVER_WEBHOOK_TOKENS_WATCH: 'tok-one-456',
          DD_SERVER_WEBHOOK_TOKENS_UPDATE: 'tok-upd-789',
          DD_SERVER_WEBHOOK_SECRET: 'hmac-secret-000',
        }),
      ),
    );
    for (const secret of ['tok-all-123', 'tok-one-456', 'tok-upd-789', 'hmac-secret-000'])
      expect(shown).not.toContain(secret);
    expect(JSON.parse(shown).webhooks).toEqual({
      enabled: true,
      tokens: { kind: 'per-endpoint', watchall: '***', watch: '***', update: '***' },
      secret: '***',
    });
    expect(
      JSON.parse(JSON.stringify(maskHubConfig(load({ DD_SERVER_WEBHOOK_TOKEN: 'shared-tok' })))).webhooks.tokens,
    ).toEqual({
      kind: 'shared',
      token: '***',
    });
  });
});
