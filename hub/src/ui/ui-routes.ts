import type { Context, Hono } from 'hono';
import type { HubEnv } from '../http/hub-env';
import { INDEX_PATH, type UiBundle, type UiSource } from './ui-bundle';

/** Paths that are never the page, whatever the Accept header says (their JSON answers stay as they are). */
const NOT_THE_PAGE = /^\/(?:api|health|metrics)(?:\/|$)/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface ServedAsset {
  contentType: string;
  etag: string;
  identity: Uint8Array;
  gzip: Uint8Array;
  cacheControl: string;
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** True when Accept-Encoding allows gzip (a `q=0` refuses it). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/**
 * Whether this GET gets the page. `/` always does: uptime checkers and `curl` send `*\/*` or no
 * Accept, and nothing else lives there. Other paths only for a navigation, a GET that asks for HTML
 * by name (`*\/*` alone is an API client, not a browser), so their JSON 404 stays for API clients.
 */
function servesPage(c: Context): boolean {
  if (c.req.path === '/') return true;
  if (NOT_THE_PAGE.test(c.req.path)) return false;
  return (c.req.header('accept') ?? '').toLowerCase().includes('text/html');
}

/** Every asset of the bundle, decoded once, by path. */
export function prepareAssets(bundle: UiBundle): Map<string, ServedAsset> {
  const served = new Map<string, ServedAsset>();
  for (const asset of bundle.assets) {
    served.set(asset.path, {
      contentType: asset.contentType,
      etag: `"${asset.hash}"`,
      identity: decodeBase64(asset.identity),
      gzip: decodeBase64(asset.gzip),
      // Pages (index, the API reference) are revalidated every time, so a new build is picked up at
      // once; the hashed assets they name never change under their name.
      cacheControl: asset.path.endsWith('.html') ? 'no-cache' : IMMUTABLE,
    });
  }
  return served;
}

/** One asset, gzip when accepted, 304 on a matching ETag; `extra` headers win over the asset's own. */
export function respondWithAsset(c: Context<HubEnv>, asset: ServedAsset, extra: Record<string, string>): Response {
  const headers = new Headers({
    'content-type': asset.contentType,
    'cache-control': asset.cacheControl,
    etag: asset.etag,
    vary: 'Accept-Encoding',
    ...extra,
  });
  // Hono's secureHeaders ran before: keep what it set unless this asset says otherwise.
  for (const [name, value] of c.res.headers) if (!headers.has(name)) headers.set(name, value);
  if (c.req.header('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
  const gzip = acceptsGzip(c.req.header('accept-encoding'));
  const body = gzip ? asset.gzip : asset.identity;
  if (gzip) headers.set('content-encoding', 'gzip');
  headers.set('content-length', String(body.byteLength));
  // workerd would compress a body again unless told it already is (encodeBody); other runtimes ignore the field.
  const init = { status: 200, headers, encodeBody: 'manual' } as ResponseInit;
  return new Response(c.req.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), init);
}

/** The headers of a page of the bundle: its strict CSP (no inline script or style), never framed. */
export function pageHeadersOf(ui: UiBundle): Record<string, string> {
  return { 'content-security-policy': ui.csp, 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin' };
}

function unavailablePage(reason: string): string {
  const text = reason.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>dockwatch: web UI not built</title><h1>The web UI is not built</h1><p>${text}</p><p>The API at /api/v1 works without it.</p></html>`;
}

/**
 * The web UI at `/`: hashed assets under /assets/ (immutable), the page for every GET and HEAD of
 * `/` and every other GET that asks for HTML outside /api, /health and /metrics (client-side
 * routes), under a strict CSP. Anything else falls through to the hub's JSON 404/405.
 */
export function registerUiRoutes(app: Hono<HubEnv>, deps: { ui: UiSource }): void {
  const { ui } = deps;
  if ('unavailable' in ui) {
    app.get('*', async function uiNotBuilt(c, next) {
      if (!servesPage(c)) return next();
      c.header('cache-control', 'no-store');
      return c.html(unavailablePage(ui.unavailable), 503);
    });
    return;
  }
  const served = prepareAssets(ui);
  const page = served.get(INDEX_PATH);
  if (!page) throw new Error(`ui: the bundle has no ${INDEX_PATH}`);
  const pageHeaders = pageHeadersOf(ui);

  app.get('/assets/*', async function uiAsset(c, next) {
    const asset = served.get(c.req.path);
    return asset ? respondWithAsset(c, asset, {}) : next();
  });
  app.get('*', async function uiPage(c, next) {
    if (c.req.path.startsWith('/assets/') || !servesPage(c)) return next();
    return respondWithAsset(c, page, pageHeaders);
  });
}
