import { describe, expect, it } from 'vitest';
import { maskUrl, maskUrlsIn } from './mask-url';
import {
  classifyVariable,
  isPlainVariable,
  quotableValue,
  secretKind,
  showVariable,
  variableRule,
} from './secret-variables';

describe('the secret table', () => {
  it.each([
    ['DD_AUTH_BASIC_ADMIN_HASH', 'secret'],
    // Issue 33 item 1: the second factors were shown in clear beside a masked hash.
    ['DD_AUTH_BASIC_BOB_TOTP', 'secret'],
    ['DD_AUTH_BASIC_BOB_RECOVERY', 'secret'],
    ['DD_AUTH_OIDC_DEX_CLIENTSECRET', 'secret'],
    ['DD_REGISTRY_HUB_PRIVATE_PASSWORD', 'secret'],
    ['DD_REGISTRY_CUSTOM_MY_MIRROR_TOKEN', 'secret'],
    ['DD_REGISTRY_ECR_AWS_SECRETACCESSKEY', 'secret'],
    ['DD_SERVER_WEBHOOK_TOKENS_UPDATE', 'secret'],
    ['DD_SERVER_METRICS_TOKEN', 'secret'],
    ['DD_NOTIFICATION_HTTP_OPS_BEARER', 'secret'],
    ['DD_NOTIFICATION_NTFY_OPS_TOPIC', 'secret'],
    ['DD_NOTIFICATION_PUSHOVER_OPS_USER', 'secret'],
    ['DD_AGENT_NAS_SECRET', 'secret'],
    ['DD_NOTIFICATION_HTTP_OPS_URL', 'secret-url'],
    ['DD_NOTIFICATION_SLACK_OPS_URL', 'secret-url'],
    ['DD_SECURITY_OSV_URL', 'secret-url'],
    ['DD_STORE_URL', 'secret-url'],
    ['DD_REGISTRY_GITLAB_WORK_URL', 'url'],
    ['DD_AUTH_OIDC_DEX_DISCOVERY', 'url'],
    ['DD_ICONS_SELFHST_URL', 'url'],
    ['DD_LOG_LEVEL', 'plain'],
    ['DD_AUTH_BASIC_ADMIN_USER', 'plain'],
    ['DD_REGISTRY_HUB_PRIVATE_LOGIN', 'plain'],
    ['DD_NOTIFICATION_HTTP_OPS_USER', 'plain'],
    ['DD_NOTIFICATION_MQTT_HA_TOPIC', 'plain'],
    ['DD_WATCHER_NAS_HOST', 'plain'],
  ])('classifies %s as %s', (name, kind) => {
    expect(classifyVariable(name)?.class).toBe(kind);
  });

  it('denies by default: a variable it does not classify is a secret, masked whole', () => {
    for (const name of [
      'DD_PUBLIC_URL',
      'DD_NOTIFICATION_HTTP_OPS_NEWKEY',
      'DD_NOTIFICATION_NOPE_OPS_URL',
      'DD_REGISTRY_HUB_PRIVATE_PRIVATEKEY',
      'DD_AUTH_LDAP_X_USER',
    ]) {
      expect(classifyVariable(name), name).toBeUndefined();
      expect(variableRule(name).class).toBe('secret');
      expect(isPlainVariable(name)).toBe(false);
      expect(showVariable(name, 'anything-at-all')).toBe('***');
      expect(quotableValue(name, 'anything-at-all')).toBeUndefined();
    }
  });

  it('groups a provider’s variables, and names the destinations its secrets are sent to', () => {
    expect(classifyVariable('DD_NOTIFICATION_HTTP_MY_OPS_URL')).toMatchObject({
      destination: true,
      group: 'DD_NOTIFICATION_HTTP_MY_OPS_',
    });
    expect(classifyVariable('DD_NOTIFICATION_HTTP_MY_OPS_BEARER')?.group).toBe('DD_NOTIFICATION_HTTP_MY_OPS_');
    expect(classifyVariable('DD_REGISTRY_ECR_PROD_REGION')?.destination).toBe(true);
    expect(classifyVariable('DD_AGENT_NAS_HOST')?.destination).toBe(true);
    expect(classifyVariable('DD_RELEASE_NOTES_GITHUB_API_URL')).toMatchObject({
      destination: true,
      group: 'DD_RELEASE_NOTES_GITHUB_',
    });
    expect(classifyVariable('DD_RELEASE_NOTES_GITHUB_TOKEN')?.group).toBe('DD_RELEASE_NOTES_GITHUB_');
  });

  it('shows plain values, a URL’s scheme and host, and nothing of a secret (issue 33 item 1)', () => {
    expect(showVariable('DD_LOG_LEVEL', 'debug')).toBe('debug');
    expect(showVariable('DD_AUTH_BASIC_BOB_TOTP', 'KRSXG5CTMVRXEZLUKN2XAZLDOJSXIZLU')).toBe('***');
    expect(showVariable('DD_AUTH_BASIC_BOB_RECOVERY', 'rc-alpha,rc-bravo')).toBe('***');
    expect(showVariable('DD_SECURITY_OSV_URL', 'https://dl.example/osv.zip?key=k-9f3a')).toBe('https://dl.example/***');
    expect(showVariable('DD_NOTIFICATION_HTTP_X_URL', 'http://ha.local:8123/api/webhook/abc?sig=s&code=c')).toBe(
      'http://ha.local:8123/***',
    );
    expect(showVariable('DD_REGISTRY_CUSTOM_X_URL', 'https://registry.example:5000')).toBe(
      'https://registry.example:5000',
    );
    // A plain value keeps its text, but not a URL's credentials, path or query.
    expect(showVariable('DD_NOTIFICATION_HTTP_X_SIMPLEBODY', 'see https://u:p@x.example/t?k=v now')).toBe(
      'see https://***@x.example/*** now',
    );
  });

  it('masks every part of a URL that may hold a token', () => {
    expect(maskUrl('https://user:pw@hooks.example.com/services/T0/B0/XyZ')).toBe('https://***@hooks.example.com/***');
    expect(maskUrl('https://example.com/')).toBe('https://example.com');
    expect(maskUrl('https://example.com?token=t')).toBe('https://example.com/?***');
    expect(maskUrl('https://example.com/#frag')).toBe('https://example.com/?***');
    expect(maskUrl('mqtt://user:pw@broker:1883')).toBe('mqtt://***@broker:1883');
    expect(maskUrl('redis://alice:s3cret@cache:6379/2')).toBe('redis://***@cache:6379/2');
    expect(maskUrl('redis://cache:6379/tok-3f9a')).toBe('redis://cache:6379/***');
    expect(maskUrl('unix:///run/redis.sock?db=1&password=x')).toBe('unix:///run/redis.sock?***');
    expect(maskUrl('not a url s3cret')).toBe('***');
    expect(maskUrl('mailto:ops@example.com')).toBe('***');
    expect(maskUrlsIn('a,https://a.example/x,https://b.example')).toBe('a,https://a.example/***,https://b.example');
  });

  it('quotes only plain values in configuration errors, their URLs masked', () => {
    expect(quotableValue('DD_LOG_LEVEL', 'loud')).toBe('loud');
    expect(quotableValue('DD_SERVER_CORS_ORIGINS', 'https://x.example/p?q')).toBe('https://x.example/***');
    expect(quotableValue('DD_AUTH_BASIC_BOB_TOTP', 'short')).toBeUndefined();
    expect(quotableValue('DD_SECURITY_OSV_URL', 'ftp://x')).toBeUndefined();
  });

  it('names the credentials a Worker must not have in [vars] (the deploy check)', () => {
    expect(secretKind('DD_AUTH_BASIC_ADMIN_HASH')).toBe('a password hash');
    expect(secretKind('DD_NOTIFICATION_DISCORD_X_URL')).toBeTypeOf('string');
    expect(secretKind('DD_AUTH_OIDC_DEX_DISCOVERY')).toBeUndefined();
    expect(secretKind('DD_LOG_LEVEL')).toBeUndefined();
  });
});
