import { discard, type FetchLike, parseRetryAfter, readCapped } from '../../../shared/registry/registry-transport';
import type { Release } from './release-match';

/** What one repository's release list came to. */
export type ForgeOutcome =
  | { kind: 'ok'; releases: Release[]; truncated: boolean }
  /** The API answered 404: no such repository, or one the token may not see. */
  | { kind: 'not-found' }
  /** The forge's rate limit is spent: nothing is asked of it before `retryAt` (ms). */
  | { kind: 'rate-limited'; retryAt: number }
  | { kind: 'error'; message: string };

export interface ForgeRequestOptions {
  fetch: FetchLike;
  now: () => number;
  timeoutMs: number;
  headers: Record<string, string>;
}

/** 100 releases a page (both forges' maximum), 10 pages: the 1,000 newest releases of a repository. */
export const PER_PAGE = 100;
export const MAX_PAGES = 10;
/** A page of 100 releases with long notes is a few hundred KiB; past this it is not a release list. */
const MAX_PAGE_BYTES = 4 * 1024 * 1024;
/** What one repository's list may hold in memory (the cache keeps 500): later pages are left unread. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;
/** GitHub caps a release body at 125,000 characters; a longer one is cut (its URL has the rest). */
export const MAX_BODY_CHARS = 125_000;
/** A limit announced without a reset time still pauses the forge this long. */
const DEFAULT_PAUSE_MS = 60_000;
/** A forge asking for a longer pause is asked again after an hour anyway. */
const MAX_PAUSE_MS = 3_600_000;

/** The `rel="next"` target of a Link header. */
export function nextLink(header: string | null): string | undefined {
  for (const part of header?.split(',') ?? []) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match && /\brel="?next"?/.test(match[2] as string)) return match[1];
  }
  return undefined;
}

/**
 * Whether an answer says the limit is spent, and until when: GitHub's 403 or 429 with
 * `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` (epoch seconds), GitLab's 429 with
 * `RateLimit-Reset`, or either's `Retry-After`.
 */
export function rateLimitedUntil(response: Response, now: number): number | undefined {
  const headers = response.headers;
  const spent = headers.get('x-ratelimit-remaining') === '0' || headers.get('ratelimit-remaining') === '0';
  const limited = response.status === 429 || (response.status === 403 && (spent || headers.has('retry-after')));
  if (!limited) return undefined;
  const reset = Number(headers.get('x-ratelimit-reset') ?? headers.get('ratelimit-reset'));
  const resetWait = Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now) : undefined;
  const wait = parseRetryAfter(headers.get('retry-after'), now) ?? resetWait ?? DEFAULT_PAUSE_MS;
  return now + Math.min(wait, MAX_PAUSE_MS);
}

/** A page's JSON, or an error naming what went wrong; never throws. */
async function readPage(response: Response, host: string): Promise<{ json: unknown; bytes: number }> {
  const bytes = await readCapped(response, MAX_PAGE_BYTES, 'release page', host);
  return { json: JSON.parse(new TextDecoder().decode(bytes)), bytes: bytes.byteLength };
}

/**
 * Walks a paginated release list from `first`: each page read (bounded), mapped by `toReleases`,
 * and the next one taken from `next`. A next page on another origin is not followed: the token must
 * not travel there.
 */
export async function walkPages(
  first: string,
  options: ForgeRequestOptions,
  toReleases: (page: unknown) => Release[] | undefined,
  next: (response: Response, url: string) => string | undefined,
): Promise<ForgeOutcome> {
  const origin = new URL(first).origin;
  const releases: Release[] = [];
  let listBytes = 0;
  let url: string | undefined = first;
  for (let page = 0; url !== undefined; page++) {
    if (page === MAX_PAGES || listBytes > MAX_LIST_BYTES) return { kind: 'ok', releases, truncated: true };
    let response: Response;
    try {
      response = await options.fetch(url, {
        method: 'GET',
        headers: options.headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return { kind: 'error', message: timedOut ? `no answer within ${options.timeoutMs} ms` : 'unreachable' };
    }
    const limited = rateLimitedUntil(response, options.now());
    if (limited !== undefined) {
      await discard(response);
      return { kind: 'rate-limited', retryAt: limited };
    }
    if (response.status === 404 && page === 0) {
      await discard(response);
      return { kind: 'not-found' };
    }
    if (!response.ok) {
      await discard(response);
      return { kind: 'error', message: `answered ${response.status}` };
    }
    let body: { json: unknown; bytes: number };
    try {
      body = await readPage(response, new URL(url).host);
    } catch (error) {
      return { kind: 'error', message: `unreadable page: ${error instanceof Error ? error.message : 'invalid'}` };
    }
    listBytes += body.bytes;
    const mapped = toReleases(body.json);
    if (mapped === undefined) return { kind: 'error', message: 'answered something that is not a release list' };
    releases.push(...mapped);
    const following = next(response, url);
    url = following !== undefined && URL.canParse(following, url) ? new URL(following, url).href : undefined;
    if (url !== undefined && new URL(url).origin !== origin) url = undefined;
  }
  return { kind: 'ok', releases, truncated: false };
}
