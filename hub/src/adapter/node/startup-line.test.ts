import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeStorage, startupLine } from './startup-line';

const NO_AUTH = { basic: [], oidc: [] };

describe('the start-up line', () => {
  it('names the storage as the secret table shows DD_STORE_URL: no user, password or query', () => {
    expect(describeStorage({ driver: 'fs', path: './data', url: undefined })).toBe(`fs ${resolve('./data')}`);
    expect(describeStorage({ driver: 'memory', path: './data', url: undefined })).toBe('memory');
    expect(describeStorage({ driver: 'redis', path: '', url: 'redis://alice:s3cret@cache:6379/2' })).toBe(
      'redis redis://***@cache:6379/2',
    );
    const unix = describeStorage({ driver: 'redis', path: '', url: 'unix:///run/redis.sock?db=1&password=s3cret' });
    expect(unix).toBe('redis unix:///run/redis.sock?***');
    // A path that may hold a token (a proxy's) is no database number: masked.
    expect(describeStorage({ driver: 'redis', path: '', url: 'rediss://cache.example/tok-3f9a' })).toBe(
      'redis rediss://cache.example/***',
    );
    expect(describeStorage({ driver: 'redis', path: '', url: 'not a url s3cret' })).not.toContain('s3cret');
  });

  it('says how people sign in, and where it listens (IPv6 in brackets)', () => {
    const listening = { host: '::1', port: 3000, version: '1.2.3', nodeVersion: 'v20.20.2' };
    const store = { driver: 'memory' as const, path: '', url: undefined };
    expect(startupLine({ store, anonymous: true, auth: NO_AUTH }, listening)).toEqual({
      version: '1.2.3',
      runtime: 'node v20.20.2',
      storage: 'memory',
      address: 'http://[::1]:3000',
      host: '::1',
      port: 3000,
      signIn: 'anonymous',
    });
    const both = { basic: [{}], oidc: [{}] } as unknown as Parameters<typeof startupLine>[0]['auth'];
    expect(startupLine({ store, anonymous: false, auth: both }, listening).signIn).toBe('basic+oidc');
  });
});
