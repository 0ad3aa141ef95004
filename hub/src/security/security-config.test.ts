import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { loadHubConfig, maskHubConfig } from '../config/hub-config';

const load = (env: Record<string, string>) =>
  loadHubConfig(env, () => {
    throw new Error('no files');
  });

function problem(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('DD_SECURITY_* configuration', () => {
  it('is off by default, and reads the scanner, the database source, the refresh and the gate', () => {
    expect(load({}).security).toEqual({
      scanner: undefined,
      scannerPath: undefined,
      osv: { url: undefined, file: undefined, refreshHours: 24 },
      blockSeverity: undefined,
      scanHours: 0,
    });
    expect(
      load({
        DD_SECURITY_SCANNER: 'osv',
        DD_SECURITY_OSV_URL: 'https://osv.example/Debian/all.zip?token=s3cret',
        DD_SECURITY_OSV_REFRESH_HOURS: '6',
        DD_SECURITY_BLOCK_SEVERITY: 'high',
      }).security,
    ).toEqual({
      scanner: 'osv',
      scannerPath: undefined,
      osv: { url: 'https://osv.example/Debian/all.zip?token=s3cret', file: undefined, refreshHours: 6 },
      blockSeverity: 'high',
      scanHours: 24,
    });
  });

  it('scans the fleet every 24 hours once a scanner is set, at DD_SECURITY_SCAN_HOURS, or only on demand with 0', () => {
    expect(load({ DD_SECURITY_SCANNER: 'trivy' }).security.scanHours).toBe(24);
    expect(load({ DD_SECURITY_SCANNER: 'osv', DD_SECURITY_SCAN_HOURS: '6' }).security.scanHours).toBe(6);
    expect(load({ DD_SECURITY_SCANNER: 'osv', DD_SECURITY_SCAN_HOURS: '0' }).security.scanHours).toBe(0);
    expect(load({ DD_SECURITY_SCAN_HOURS: '0' }).security.scanHours).toBe(0);
    expect(problem({ DD_SECURITY_SCAN_HOURS: '12' })).toMatch(/^DD_SECURITY_SCAN_HOURS: needs DD_SECURITY_SCANNER/);
    expect(problem({ DD_SECURITY_SCANNER: 'osv', DD_SECURITY_SCAN_HOURS: '-1' })).toMatch(/^DD_SECURITY_SCAN_HOURS: /);
    expect(problem({ DD_SECURITY_SCANNER: 'osv', DD_SECURITY_SCAN_HOURS: 'daily' })).toMatch(
      /^DD_SECURITY_SCAN_HOURS: /,
    );
  });

  it('reads trivy and grype, with the binary’s path when given (the Node entry checks it is there)', () => {
    expect(load({ DD_SECURITY_SCANNER: 'trivy' }).security).toMatchObject({ scanner: 'trivy', scannerPath: undefined });
    expect(
      load({ DD_SECURITY_SCANNER: 'Grype', DD_SECURITY_SCANNER_PATH: '/opt/grype/bin/grype' }).security,
    ).toMatchObject({ scanner: 'grype', scannerPath: '/opt/grype/bin/grype' });
  });

  it('never shows the URL (it may hold a token)', () => {
    const masked = maskHubConfig(
      load({ DD_SECURITY_SCANNER: 'osv', DD_SECURITY_OSV_URL: 'https://osv.example/x?token=s3cret' }),
    );
    expect(JSON.stringify(masked)).not.toContain('s3cret');
  });

  it.each([
    [{ DD_SECURITY_SCANNER: 'clair' }, /^DD_SECURITY_SCANNER: must be one of osv, trivy, grype/],
    [
      { DD_SECURITY_SCANNER: 'trivy', DD_SECURITY_OSV_FILE: '/data/osv.zip' },
      /^DD_SECURITY_OSV_FILE: is not used by trivy, which keeps its own database/,
    ],
    [
      { DD_SECURITY_SCANNER: 'grype', DD_SECURITY_OSV_URL: 'https://osv.example/all.zip?token=s3cret' },
      /^DD_SECURITY_OSV_URL: is not used by grype, which keeps its own database/,
    ],
    [
      { DD_SECURITY_SCANNER: 'grype', DD_SECURITY_OSV_REFRESH_HOURS: '6' },
      /^DD_SECURITY_OSV_REFRESH_HOURS: is not used by grype/,
    ],
    [
      { DD_SECURITY_SCANNER_PATH: '/usr/bin/trivy' },
      /^DD_SECURITY_SCANNER_PATH: needs DD_SECURITY_SCANNER=trivy or grype/,
    ],
    [
      { DD_SECURITY_SCANNER: 'osv', DD_SECURITY_SCANNER_PATH: '/usr/bin/trivy' },
      /^DD_SECURITY_SCANNER_PATH: needs DD_SECURITY_SCANNER=trivy or grype/,
    ],
    [
      { DD_SECURITY_SCANNER: 'osv', DD_SECURITY_OSV_URL: 'ftp://osv.example/all.zip' },
      /^DD_SECURITY_OSV_URL: must be an http/,
    ],
    [
      { DD_SECURITY_SCANNER: 'osv', DD_SECURITY_OSV_URL: 'not a url token=s3cret' },
      /^DD_SECURITY_OSV_URL: must be an http/,
    ],
    [
      { DD_SECURITY_SCANNER: 'osv', DD_SECURITY_OSV_URL: 'https://a.example/x', DD_SECURITY_OSV_FILE: '/data/osv.zip' },
      /^DD_SECURITY_OSV_FILE: cannot be set together with DD_SECURITY_OSV_URL/,
    ],
    [{ DD_SECURITY_OSV_FILE: '/data/osv.zip' }, /^DD_SECURITY_OSV_FILE: needs DD_SECURITY_SCANNER=osv/],
    [{ DD_SECURITY_SCANNER: 'osv', DD_SECURITY_OSV_REFRESH_HOURS: '-1' }, /^DD_SECURITY_OSV_REFRESH_HOURS: /],
    [{ DD_SECURITY_BLOCK_SEVERITY: 'unknown' }, /^DD_SECURITY_BLOCK_SEVERITY: /],
  ])('refuses %o at start, naming the variable', (env, message) => {
    const text = problem(env);
    expect(text).toMatch(message);
    expect(text).not.toContain('s3cret');
  });
});
