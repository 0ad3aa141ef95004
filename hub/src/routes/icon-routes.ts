import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import { ICON_PROVIDERS, IconSlugSchema, iconRequest, isIconProvider } from '../icons/icon-providers';
import type { IconService } from '../icons/icon-service';
import { describePrincipal } from './system-routes';

/** The icon routes: the icon service (its cache, the upstream sets, internetlessMode); a clear is audited and logged. */
export interface IconRoutesDeps {
  icons: IconService;
  audit: { append(record: AuditRecord): Promise<unknown> };
  logger: Logger;
}

/** A day: icons change seldom, and DELETE /icons/cache is there for when one did. */
const BROWSER_CACHE_SECONDS = 86_400;

/**
 * Served from the hub's own origin, so a sanitised SVG opened on its own still gets no script, no
 * fetch and no form: the page is sandboxed and may load nothing.
 */
const ICON_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** GET /api/v1/icons/{provider}/{slug} and DELETE /api/v1/icons/cache (http-interface §4.14, docs/icons.md). */
export function registerIconRoutes(api: RouteGroup, deps: IconRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/icons/:provider/:slug',
      access: 'read',
      tag: 'icons',
      summary: `An icon of a public set (${ICON_PROVIDERS.join(', ')}), proxied, checked and cached; SVGs sanitised. The slug may end in .svg or .png`,
      responseType: 'image/svg+xml',
      statuses: {
        400: 'Invalid slug',
        404: 'Unknown set, no such icon, or (details.reason internetless-mode) not cached while internetlessMode is on',
        502: 'The set failed, timed out, or sent something that is not a safe icon (details.reason)',
      },
    },
    async (c) => {
      const provider = c.req.param('provider') ?? '';
      const slug = c.req.param('slug') ?? '';
      if (!isIconProvider(provider)) {
        throw new HttpError(404, 'Unknown icon set', { provider: provider.slice(0, 100), providers: ICON_PROVIDERS });
      }
      const checked = v.safeParse(IconSlugSchema, slug);
      if (!checked.success) throw new HttpError(400, `Invalid icon slug: ${checked.issues[0]?.message}`);
      if (iconRequest(provider, slug).formats.length === 0) {
        throw new HttpError(404, `${provider} has no icons in that format`, { provider, slug });
      }
      const result = await deps.icons.icon(provider, slug);
      if ('failure' in result) {
        const { failure } = result;
        if (failure.kind === 'internetless') {
          throw new HttpError(404, 'Icon not cached, and internetlessMode forbids fetching it', {
            reason: 'internetless-mode',
            provider,
            slug,
          });
        }
        if (failure.kind === 'not-found') throw new HttpError(404, 'Icon not found', { provider, slug });
        throw new HttpError(502, 'The icon set did not give a usable icon', { reason: failure.reason, provider, slug });
      }
      const { icon, cached } = result;
      c.header('Content-Type', icon.contentType);
      c.header('Cache-Control', `private, max-age=${BROWSER_CACHE_SECONDS}`);
      c.header('Content-Security-Policy', ICON_CSP);
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('X-Icon-Cache', cached ? 'hit' : 'miss');
      return c.body(icon.body as Uint8Array<ArrayBuffer>);
    },
  );
  api.add(
    {
      method: 'delete',
      path: '/icons/cache',
      access: 'admin',
      tag: 'icons',
      summary: 'Empty the icon cache: each icon is fetched again on its next request; audited (icon-cache-cleared)',
      response: v.object({ cleared: v.number() }),
    },
    async (c) => {
      const cleared = await deps.icons.clear();
      // Issue 33 item 10: who emptied the cache, in the audit and the log.
      const by = describePrincipal(c.get('principal'));
      deps.logger.info('icon cache cleared', { by, cleared });
      await deps.audit.append({
        action: 'icon-cache-cleared',
        status: 'success',
        details: `icon cache cleared by ${by}: ${cleared} ${cleared === 1 ? 'entry' : 'entries'}`,
      });
      return c.json({ cleared });
    },
  );
}
