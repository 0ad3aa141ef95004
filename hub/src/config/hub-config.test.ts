import { describe, expect, it } from 'vitest';
import { configErrorOf } from '../../../test/support/config-error-of';
import { loadHubConfig, maskHubConfig } from './hub-config';

const files: Record<string, string> = { '/run/secrets/metrics': 'file-token\n' };
const readFile = (path: string) => {
  const content = files[path];
  if (content === undefined) throw new Error('ENOENT: no such file');
  return content;
};
const load = (env: Record<string, string>) => loadHubConfig(env, readFile);
/** A well-formed argon2id PHC string (configuration only parses it). */
const ADMIN = {
  DD_AUTH_BASIC_ADMIN_USER: 'admin',
  DD_AUTH_BASIC_ADMIN_HASH:
    '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXoxMjM0NTY',
};

const errorOf = (env: Record<string, string>) => configErrorOf(() => load(env));

describe('loadHubConfig', () => {
  it("reads the icon sets' base URLs and deadline, and refuses a base that is not an http(s) URL without credentials", () => {
    expect(load({}).icons).toEqual({
      bases: {
        selfhst: 'https://cdn.jsdelivr.net/gh/selfhst/icons',
        'simple-icons': 'https://cdn.jsdelivr.net/npm/simple-icons@latest',
        'dashboard-icons': 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons',
      },
      timeoutMs: 10_000,
    });
    const mirrored = load({ DD_ICONS_SIMPLEICONS_URL: 'http://mirror.lan/si', DD_ICONS_TIMEOUT: '3' }).icons;
    expect(mirrored.bases['simple-icons']).toBe('http://mirror.lan/si');
    expect(mirrored.timeoutMs).toBe(3000);
    expect(load({ DD_ICONS_TIMEOUT: '3' }).unknownVariables).toEqual([]);
    for (const bad of ['ftp://mirror.lan', 'mirror.lan/icons', 'https://user:pw@mirror.lan']) {
      const message = errorOf({ DD_ICONS_SELFHST_URL: bad }).message;
      expect(message).toMatch(/^DD_ICONS_SELFHST_URL/);
      expect(message).not.toContain('pw@');
    }
    expect(errorOf({ DD_ICONS_TIMEOUT: '0' }).message).toMatch(/^DD_ICONS_TIMEOUT/);
  });

  it('applies the documented defaults', () => {
    const config = load({});
    expect(config.server).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      trustProxy: 0,
      cookieSameSite: 'lax',
      metricsAuth: true,
    });
    expect(config.server).toMatchObject({ featureContainerActions: true, featureDelete: false });
    expect(config.store).toEqual({ driver: 'fs', path: './data', url: undefined });
    expect(config.log).toEqual({ level: 'info', format: 'json', bufferEnabled: true });
    expect(config.anonymous).toBe(true);
    expect(config.unknownVariables).toEqual([]);
  });

  it('listens on every interface by default once authentication is configured', () => {
    expect(load(ADMIN).server.host).toBe('0.0.0.0');
    expect(load({ ...ADMIN, DD_SERVER_HOST: '::1' }).server.host).toBe('::1');
  });

  it.each([
    [{ DD_AUTH_BASIC_ADMIN_USER: 'admin' }, 'DD_AUTH_BASIC_ADMIN_HASH'],
    [{ DD_AUTH_BASIC_ADMIN_HASH: ADMIN.DD_AUTH_BASIC_ADMIN_HASH }, 'DD_AUTH_BASIC_ADMIN_USER'],
    [
      { ...ADMIN, DD_AUTH_BASIC_ADMIN_HASH: '$2b$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234' },
      'DD_AUTH_BASIC_ADMIN_HASH',
    ],
    [{ ...ADMIN, DD_AUTH_BASIC_ADMIN_TOTP: 'not base32!' }, 'DD_AUTH_BASIC_ADMIN_TOTP'],
    [{ ...ADMIN, DD_AUTH_BASIC_ADMIN_RECOVERY: ' , ' }, 'DD_AUTH_BASIC_ADMIN_RECOVERY'],
  ])('refuses a bad basic user, naming the variable (%#)', (env, variable) => {
    expect(() => load(env)).toThrow(variable);
  });

  it('masks basic users down to their id and username', () => {
    const shown = JSON.stringify(maskHubConfig(load(ADMIN)));
    expect(shown).toContain('"username":"admin"');
    expect(shown).not.toContain('argon2id');
  });

  it.each([
    ['DD_SERVER_PORT', 'abc'],
    ['DD_SERVER_PORT', '70000'],
    ['DD_SERVER_PORT', '3000.5'],
    ['DD_LOG_LEVEL', 'loud'],
    ['DD_LOG_FORMAT', 'xml'],
    ['DD_LOG_BUFFER_ENABLED', 'maybe'],
    ['DD_STORE_DRIVER', 'postgres'],
    ['DD_SERVER_COOKIE_SAMESITE', 'sometimes'],
    ['DD_SERVER_TRUSTPROXY', '-1'],
    ['DD_AUDIT_MAX_ENTRIES', '5'],
    ['DD_UI_MATURITY_THRESHOLD_DAYS', '0'],
    ['DD_SERVER_HOST', ''],
  ])('refuses %s=%s with a message that names the variable', (name, value) => {
    const error = errorOf({ [name]: value });
    expect(error.variable).toBe(name);
    expect(error.message.startsWith(`${name}: `)).toBe(true);
  });

  it('parses booleans in their usual spellings', () => {
    for (const yes of ['true', 'TRUE', '1', 'yes', 'on'])
      expect(load({ DD_COMPAT_WUDCARD: yes }).compat.wudCard).toBe(true);
    for (const no of ['false', '0', 'no', 'Off'])
      expect(load({ DD_SERVER_FEATURE_CONTAINERACTIONS: no }).server.featureContainerActions).toBe(false);
  });

  it('reads <NAME>__FILE, refuses both forms at once, and names an unreadable file', () => {
    expect(load({ DD_SERVER_METRICS_TOKEN__FILE: '/run/secrets/metrics' }).server.metricsToken).toBe('file-token');
    expect(
      errorOf({ DD_SERVER_METRICS_TOKEN: 'a', DD_SERVER_METRICS_TOKEN__FILE: '/run/secrets/metrics' }).variable,
    ).toBe('DD_SERVER_METRICS_TOKEN__FILE');
    const missing = errorOf({ DD_SERVER_METRICS_TOKEN__FILE: '/nope' });
    expect(missing.message).toContain('/nope');
  });

  it('requires DD_STORE_URL for redis and never echoes it', () => {
    expect(errorOf({ DD_STORE_DRIVER: 'redis' }).variable).toBe('DD_STORE_URL');
    const bad = errorOf({ DD_STORE_DRIVER: 'redis', DD_STORE_URL: 'http://user:hunter2@host' });
    expect(bad.variable).toBe('DD_STORE_URL');
    expect(bad.message).not.toContain('hunter2');
  });

  it('refuses the removed DD_TRIGGER_* prefix (http-interface §9.8)', () => {
    const error = errorOf({ DD_TRIGGER_SLACK_MAIN_URL: 'https://example' });
    expect(error.variable).toBe('DD_TRIGGER_SLACK_MAIN_URL');
    expect(error.message).toContain('DD_NOTIFICATION_');
  });

  it('caps edge connections not yet signed in: 16 per address and 1,024 in total unless told otherwise', () => {
    expect(load({}).edge.signInLimits).toEqual({ perAddress: 16, total: 1_024 });
    const raised = load({ DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '100', DD_EDGE_SIGNIN_MAX: '5000' });
    expect(raised.edge.signInLimits).toEqual({ perAddress: 100, total: 5_000 });
    expect(raised.unknownVariables).toEqual([]);
    expect(errorOf({ DD_EDGE_SIGNIN_MAX: '0' }).variable).toBe('DD_EDGE_SIGNIN_MAX');
    expect(errorOf({ DD_EDGE_SIGNIN_MAX_PER_ADDRESS: 'many' }).variable).toBe('DD_EDGE_SIGNIN_MAX_PER_ADDRESS');
  });

  it('reads DD_APPROVALS_SEPARATE (off by default) and refuses a value that is not a boolean', () => {
    expect(load({}).approvals).toEqual({ separate: false });
    const on = load({ DD_APPROVALS_SEPARATE: 'true' });
    expect(on.approvals).toEqual({ separate: true });
    expect(on.unknownVariables).toEqual([]);
    expect(errorOf({ DD_APPROVALS_SEPARATE: 'maybe' }).variable).toBe('DD_APPROVALS_SEPARATE');
  });

  it('reports unknown DD_ variables but not provider families or other prefixes', () => {
    const config = load({
      DD_SERVR_PORT: '1',
      DD_WATCHER_LOCAL_CRON: '* * * * *',
      HOME: '/root',
      WUD_SERVER_PORT: '1',
    });
    expect(config.unknownVariables).toEqual(['DD_SERVR_PORT']);
  });

  it('masks secrets for display', () => {
    const shown = JSON.stringify(
      maskHubConfig(
        load({ DD_SERVER_METRICS_TOKEN: 'tok-123', DD_STORE_DRIVER: 'redis', DD_STORE_URL: 'redis://:pw@h' }),
      ),
    );
    expect(shown).not.toContain('tok-123');
    expect(shown).not.toContain(':pw@');
    expect(shown).toContain('***');
  });
});
