import type { Logger } from '../../../shared/logging/logger';
import type { CachedIcon, IconCache, IconContentType } from './icon-cache';
import { type IconFormat, type IconProvider, iconRequest, iconUrl } from './icon-providers';
import { SvgRejected, sanitizeSvg } from './svg-sanitizer';

/** An icon is a few KiB; anything past this is not one (docs/icons.md). */
export const MAX_ICON_BYTES = 256 * 1024;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const CONTENT_TYPE_OF: Record<IconFormat, IconContentType> = { svg: 'image/svg+xml', png: 'image/png' };

/** Why an icon could not be served: the route turns each into its status. */
export type IconFailure =
  /** No set has it (every upstream answered 404). */
  | { kind: 'not-found' }
  /** internetlessMode is on and the icon is not cached. */
  | { kind: 'internetless' }
  /** The upstream failed, timed out, or sent something that is not a safe icon. */
  | { kind: 'upstream'; reason: string };

export type IconResult = { icon: CachedIcon; cached: boolean } | { failure: IconFailure };

export interface IconServiceDeps {
  cache: IconCache;
  bases: Record<IconProvider, string>;
  timeoutMs: number;
  /** internetlessMode (http-interface §2.13): only cached icons are served. */
  internetless: () => boolean;
  fetch: typeof fetch;
  now: () => number;
  logger: Logger;
}

export interface IconService {
  icon(provider: IconProvider, slug: string): Promise<IconResult>;
  clear(): Promise<number>;
  stats: IconCache['stats'];
}

class UpstreamRefused extends Error {}

/** Redirects followed within the set's own host; a 4th is refused. */
export const MAX_ICON_REDIRECTS = 3;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The set's answer, redirects followed by hand: only to the host (and port) of the configured base,
 * and over https unless the base itself is http. A CDN may move a file within itself; it may not
 * send the hub to another host (an address inside the hub's network) or downgrade to plain http.
 */
async function fetchWithinBase(fetcher: typeof fetch, url: string, base: string, init: RequestInit): Promise<Response> {
  const allowed = new URL(base);
  let current = new URL(url);
  for (let hops = 0; ; hops++) {
    const response = await fetcher(current.href, { ...init, redirect: 'manual' });
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    await response.body?.cancel();
    if (hops === MAX_ICON_REDIRECTS) throw new UpstreamRefused(`more than ${MAX_ICON_REDIRECTS} redirects`);
    const location = response.headers.get('location');
    if (location === null || !URL.canParse(location, current)) {
      throw new UpstreamRefused(`answered ${response.status} without a usable Location`);
    }
    const next = new URL(location, current);
    if (next.host !== allowed.host || (next.protocol !== 'https:' && next.protocol !== 'http:')) {
      throw new UpstreamRefused(`redirect to another host refused (only ${allowed.host} is followed)`);
    }
    if (next.protocol === 'http:' && allowed.protocol !== 'http:') {
      throw new UpstreamRefused('redirect from https to http refused');
    }
    current = next;
  }
}

/** Reads at most `limit` bytes; more is refused without reading the rest. */
async function readCapped(response: Response, limit: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    await response.body?.cancel();
    throw new UpstreamRefused(`larger than ${limit} bytes`);
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new UpstreamRefused(`larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

/** The upstream's bytes as the hub will serve them, or UpstreamRefused. */
function checkedBody(format: IconFormat, contentType: string, body: Uint8Array): Uint8Array {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== CONTENT_TYPE_OF[format])
    throw new UpstreamRefused(`content type "${type}" is not ${CONTENT_TYPE_OF[format]}`);
  if (format === 'png') {
    if (!PNG_SIGNATURE.every((byte, i) => body[i] === byte)) throw new UpstreamRefused('not a PNG (signature)');
    return body;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new UpstreamRefused('not UTF-8 text');
  }
  try {
    return new TextEncoder().encode(sanitizeSvg(text));
  } catch (error) {
    if (error instanceof SvgRejected) throw new UpstreamRefused(`not a usable SVG: ${error.message}`);
    throw error;
  }
}

/**
 * Icons from the public sets, proxied so the browser reaches only the hub (its CSP allows no other
 * origin) and cached in storage so a dashboard does not refetch them; internetlessMode serves the
 * cache only. Each upstream answer is checked (type, signature, size) and SVGs are sanitised before
 * they are cached: what the cache holds is always safe to serve.
 */
export function createIconService(deps: IconServiceDeps): IconService {
  const inFlight = new Map<string, Promise<IconResult>>();

  const fetchIcon = async (provider: IconProvider, slug: string): Promise<IconResult> => {
    const request = iconRequest(provider, slug);
    let failure: IconFailure = { kind: 'not-found' };
    for (const format of request.formats) {
      const base = deps.bases[provider];
      const url = iconUrl(base, provider, request.name, format);
      try {
        // One deadline for the whole chain of redirects.
        const response = await fetchWithinBase(deps.fetch, url, base, {
          signal: AbortSignal.timeout(deps.timeoutMs),
          headers: { accept: CONTENT_TYPE_OF[format] },
        });
        if (response.status === 404) {
          await response.body?.cancel();
          continue;
        }
        if (!response.ok) {
          await response.body?.cancel();
          throw new UpstreamRefused(`answered ${response.status}`);
        }
        const body = checkedBody(
          format,
          response.headers.get('content-type') ?? '',
          await readCapped(response, MAX_ICON_BYTES),
        );
        const icon: CachedIcon = { contentType: CONTENT_TYPE_OF[format], body, storedAt: deps.now() };
        await deps.cache.put(`${provider}:${slug}`, icon);
        return { icon, cached: false };
      } catch (error) {
        const reason =
          error instanceof UpstreamRefused
            ? error.message
            : error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
              ? `no answer within ${deps.timeoutMs} ms`
              : 'unreachable';
        deps.logger.warn('icon upstream refused', { provider, slug, format, reason });
        // A later format may still be served; the first failure is the one reported.
        if (failure.kind === 'not-found') failure = { kind: 'upstream', reason };
      }
    }
    return { failure };
  };

  return {
    async icon(provider, slug) {
      const key = `${provider}:${slug}`;
      const cached = await deps.cache.get(key);
      if (cached) return { icon: cached, cached: true };
      if (deps.internetless()) return { failure: { kind: 'internetless' } };
      // One upstream request per icon however many rows of a dashboard ask for it at once.
      let pending = inFlight.get(key);
      if (!pending) {
        pending = fetchIcon(provider, slug).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return pending;
    },
    clear: () => deps.cache.clear(),
    stats: () => deps.cache.stats(),
  };
}
