import type { FetchLike } from '../../../shared/registry/registry-transport';

/** A provider call may not hold a sign-in open longer than this. */
export const OIDC_REQUEST_TIMEOUT_MS = 10_000;
// Discovery documents, token answers and JWKS are a few KiB; anything far larger is not one.
const MAX_BODY_CHARS = 512 * 1024;

export interface JsonAnswer {
  status: number;
  /** The parsed body, or undefined when it was not JSON. */
  json: unknown;
}

/**
 * One request to a provider with a deadline and no redirects followed (a redirect could lead off
 * https). Throws only when the provider could not be reached; any status is returned.
 */
export async function fetchProviderJson(fetch: FetchLike, url: string, init: RequestInit = {}): Promise<JsonAnswer> {
  const response = await fetch(url, {
    ...init,
    redirect: 'manual',
    signal: AbortSignal.timeout(OIDC_REQUEST_TIMEOUT_MS),
    headers: { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) },
  });
  const text = await response.text();
  let json: unknown;
  if (text.length <= MAX_BODY_CHARS) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, json };
}

/** The error's own text, cut short: provider failures are named, never echoed at length. */
export function describeFetchFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const text =
    typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : String(error);
  return text.slice(0, 200);
}
