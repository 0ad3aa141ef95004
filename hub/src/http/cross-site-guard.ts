import type { MiddlewareHandler } from 'hono';
import { errorBody } from './http-error';
import type { HubEnv } from './hub-env';
import { isSameOrigin } from './same-origin';

/** Methods that change nothing here, so a browser may send them from anywhere. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Sec-Fetch-Site values a browser gives a request made by this origin's own page, or typed by the user. */
const OWN_SITE = new Set(['same-origin', 'none']);

/**
 * Refuses a state-changing request that a browser sent on behalf of another origin's page, with
 * or without a session: in anonymous mode every route is open, so a form or a no-cors fetch on any
 * page, opened on the hub's machine, could otherwise watch, update or delete through it. A browser
 * names the page's origin (Origin) and the relation (Sec-Fetch-Site); both must say "this origin".
 * A caller sending neither (curl, CI, registries) is no browser and passes. API keys are exempt
 * (http-interface §5.2): a page cannot attach one cross-site without a CORS preflight, which the hub
 * grants only to the origins of DD_SERVER_CORS_ORIGINS. Those origins pass here too, with or without
 * a key: naming an origin there is the administrator's consent to let its pages change state
 * (docs/cors.md). Behind a proxy the server's own origin comes from X-Forwarded-* only with
 * DD_SERVER_TRUSTPROXY.
 */
export function crossSiteGuard(trustProxy: number, corsOrigins: readonly string[] = []): MiddlewareHandler<HubEnv> {
  const trusted = new Set(corsOrigins);
  return async function refuseCrossSite(c, next) {
    if (SAFE_METHODS.has(c.req.method) || c.get('principal').kind === 'api-key') return next();
    const origin = c.req.header('origin');
    if (origin !== undefined && trusted.has(origin)) return next();
    const site = c.req.header('sec-fetch-site');
    if ((site === undefined || OWN_SITE.has(site)) && isSameOrigin(c, trustProxy)) return next();
    return c.json(
      errorBody(403, 'Cross-origin requests that change state are refused', { reason: 'cross-origin' }),
      403,
    );
  };
}
