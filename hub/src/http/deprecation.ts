import type { Context } from 'hono';

/**
 * Headers for deprecated routes (http-interface §9.4, §9.5): RFC 9745 `Deprecation` (the date it was
 * deprecated, as a structured-field date) and RFC 8594 `Sunset`, plus a link to the successor.
 */
export interface DeprecationNotice {
  deprecatedAt: Date;
  sunset: Date;
  successor: string;
}

export const SETTINGS_PUT_DEPRECATION: DeprecationNotice = {
  deprecatedAt: new Date('2026-01-01T00:00:00Z'),
  // Kept until API v2; the date is a promise not to remove it sooner.
  sunset: new Date('2027-12-31T23:59:59Z'),
  successor: '/api/v1/settings',
};

export const AUTH_STRATEGIES_DEPRECATION: DeprecationNotice = {
  deprecatedAt: new Date('2026-01-01T00:00:00Z'),
  // Removal is scheduled for v1.8.0.
  sunset: new Date('2027-06-30T23:59:59Z'),
  successor: '/api/v1/auth/status',
};

export function setDeprecationHeaders(c: Context, notice: DeprecationNotice): void {
  c.header('Deprecation', `@${Math.floor(notice.deprecatedAt.getTime() / 1000)}`);
  c.header('Sunset', notice.sunset.toUTCString());
  c.header('Link', `<${notice.successor}>; rel="successor-version"`);
}
