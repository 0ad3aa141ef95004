import type { Context } from 'hono';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { createRateLimiter } from '../http/rate-limit';
import type { RouteGroup } from '../http/route-group';
import type { SecurityService } from '../security/security-service';
import type { ContainerStore } from '../store/container-store';
import { toPublicContainer } from '../watchers/public-container';
import { findContainer } from './container-target';
import { containerSecurity } from './security-views';

/** POST /api/v1/containers/{id}/scan: 30 per minute per caller (http-interface §4.8). */
export const SCAN_LIMIT = { limit: 30, windowMs: 60_000 } as const;
/** POST /api/v1/containers/scan-all: one per 60 s per address, admins exempt. */
export const SCAN_ALL_LIMIT = { limit: 1, windowMs: 60_000 } as const;

export interface SecurityRoutesDeps {
  containers: Pick<ContainerStore, 'get' | 'all'>;
  security: Pick<SecurityService, 'configured' | 'scan' | 'scanAll' | 'scans'>;
  now: () => number;
  clientAddress: (c: Context) => string | undefined;
}

function notConfigured(): HttpError {
  return new HttpError(
    400,
    'No vulnerability scanner is configured: set DD_SECURITY_SCANNER (osv with an OSV database, trivy or grype; docs/security-scanning.md)',
    { reason: 'scanner-not-configured' },
  );
}

/** Sessions and keys holding `admin` are exempt from the scan-all limit (decisions §5: sessions hold every scope). */
function isAdmin(c: Context<HubEnv>): boolean {
  const principal = c.get('principal');
  return principal.kind !== 'api-key' || principal.scopes.includes('admin');
}

/** The scan routes (http-interface §4.8, §6.1); the reads are with the container routes. */
export function registerSecurityRoutes(api: RouteGroup, deps: SecurityRoutesDeps): void {
  const scanLimiter = createRateLimiter({ ...SCAN_LIMIT, now: deps.now });
  const scanAllLimiter = createRateLimiter({ ...SCAN_ALL_LIMIT, now: deps.now });
  const refuse = (what: string, limit: { limit: number; windowMs: number }, retryAfterSeconds: number) =>
    new HttpError(
      429,
      `At most ${limit.limit} ${what} per ${limit.windowMs / 1000} seconds`,
      { limit: limit.limit, windowSeconds: limit.windowMs / 1000 },
      { 'Retry-After': String(retryAfterSeconds) },
    );

  api.add(
    {
      method: 'post',
      path: '/containers/scan-all',
      access: 'containers:scan',
      tag: 'security',
      summary:
        'Scan every container in the background (202); progress as dd:scan-started and dd:scan-completed with cumulative counts, then one security-scan-cycle-complete',
      statuses: {
        202: 'Started (or joined the cycle already running)',
        400: 'No scanner configured',
        429: 'More than one in 60 seconds from this address',
      },
    },
    (c) => {
      if (!deps.security.configured()) throw notConfigured();
      if (!isAdmin(c)) {
        const decision = scanAllLimiter.take(`ip:${deps.clientAddress(c) ?? 'unknown'}`);
        if (!decision.allowed) throw refuse('scan-all requests', SCAN_ALL_LIMIT, decision.retryAfterSeconds);
      }
      const { cycleId, scheduledCount, joined } = deps.security.scanAll();
      return c.json(
        {
          message: joined ? 'A scan of every container is already running' : 'Scan of every container started',
          cycleId,
          requestId: cycleId,
          scheduledCount,
        },
        202,
      );
    },
  );

  api.add(
    {
      method: 'post',
      path: '/containers/:id/scan',
      access: 'containers:scan',
      tag: 'security',
      summary: 'Scan the update candidate image when one exists, else the running image; the updated container',
      statuses: {
        400: 'No scanner configured',
        404: 'Unknown container',
        429: 'More than 30 scans in a minute',
        500: 'The scan failed',
      },
    },
    async (c) => {
      const principal = c.get('principal');
      const key =
        principal.kind === 'session'
          ? `session:${principal.username}`
          : principal.kind === 'api-key'
            ? `api-key:${principal.keyId}`
            : `ip:${deps.clientAddress(c) ?? 'unknown'}`;
      const decision = scanLimiter.take(key);
      if (!decision.allowed) throw refuse('scans', SCAN_LIMIT, decision.retryAfterSeconds);
      const container = findContainer(deps.containers, c.req.param('id') ?? '');
      if (!deps.security.configured()) throw notConfigured();
      const scan = await deps.security.scan(container);
      if (scan.status === 'failed')
        throw new HttpError(500, `The scan of ${container.name} failed: ${scan.error ?? 'unknown error'}`);
      return c.json({ ...toPublicContainer(container), security: containerSecurity(scan, true) });
    },
  );
}
