import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import { DOCS_PAGE_PATH, type UiSource } from '../ui/ui-bundle';
import { pageHeadersOf, prepareAssets, respondWithAsset } from '../ui/ui-routes';

/** The built web UI, which also holds the reference page and its script (scripts/build-ui.mjs). */
export interface ApiDocsRouteDeps {
  ui: UiSource | undefined;
}

const NOT_BUILT = 'The API reference page is part of the web UI build, which this hub does not have';

/**
 * GET /api/v1/docs: a browsable reference of this API, rendered in the browser from
 * /api/v1/openapi.json by a script of the UI bundle, so it runs under the UI's strict CSP, from
 * the hub's own origin, on Node and in workerd alike (docs/openapi.md). Public like the document.
 */
export function registerApiDocsRoute(api: RouteGroup, deps: ApiDocsRouteDeps): void {
  const { ui } = deps;
  const bundle = ui && !('unavailable' in ui) ? ui : undefined;
  const page =
    bundle &&
    prepareAssets({ ...bundle, assets: bundle.assets.filter((a) => a.path === DOCS_PAGE_PATH) }).get(DOCS_PAGE_PATH);
  api.add(
    {
      method: 'get',
      path: '/docs',
      access: 'public',
      tag: 'system',
      summary: 'This API reference as a web page, rendered from /api/v1/openapi.json',
      responseType: 'text/html',
      statuses: { 503: NOT_BUILT },
    },
    (c) => {
      if (!bundle || !page) {
        throw new HttpError(503, ui && 'unavailable' in ui ? `${NOT_BUILT}: ${ui.unavailable}` : NOT_BUILT);
      }
      return respondWithAsset(c, page, pageHeadersOf(bundle));
    },
  );
}
