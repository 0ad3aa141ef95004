import { errorMessage } from '../error-message';
import { RegistryError } from './registry-error';
import { type RequestLimiter, realSleep, type Sleep } from './request-limiter';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * What the registry code reads of an HTTP answer: the part of fetch's Response it uses. A runtime's
 * fetch fits as it is; a one-shot process answers with a lighter object instead, because building
 * Responses loads undici and web streams, which a fresh process pays for on every run
 * (hub/src/adapter/node/node-http-fetch.ts).
 */
export interface RegistryResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  readonly body: RegistryResponseBody | null;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

/** The body as the registry code reads it: chunk by chunk with a cap (readCapped), or dropped. */
export interface RegistryResponseBody {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
    cancel(reason?: unknown): Promise<void>;
  };
  cancel(reason?: unknown): Promise<void>;
}

/** The fetch registries are asked through: any FetchLike is one. */
export type RegistryFetch = (input: string, init: RequestInit) => Promise<RegistryResponse>;

/** One finished request, for metrics and request counting (by method and path kind). */
export interface RegistryRequestEvent {
  method: string;
  host: string;
  path: string;
  status: number | 'error';
  durationMs: number;
}

export interface RegistryTransportOptions {
  /** Runtime fetch; the Node adapter passes one bound to a CA file where a registry needs it. */
  fetch?: RegistryFetch;
  limiter: RequestLimiter;
  timeoutMs?: number;
  /** Retries after network errors, 429, 502, 503 and 504. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited out; the error carries it instead. */
  maxRetryAfterMs?: number;
  sleep?: Sleep;
  now?: () => number;
  onRequest?: (event: RegistryRequestEvent) => void;
}

const MAX_REDIRECTS = 5;
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,7}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Drops the response body so the connection can be reused. */
export async function discard(response: RegistryResponse): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Already consumed or aborted.
  }
}

/**
 * HTTP for registries: a deadline per attempt, bounded retries with backoff, Retry-After, the
 * host's limiter around every attempt, and redirects followed by hand so that credentials never
 * travel to another origin (registries redirect blob downloads to storage hosts).
 */
export class RegistryTransport {
  private readonly fetch: RegistryFetch;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxRetryAfterMs: number;
  private readonly sleep: Sleep;
  private readonly now: () => number;

  constructor(private readonly options: RegistryTransportOptions) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
    this.sleep = options.sleep ?? realSleep;
    this.now = options.now ?? Date.now;
  }

  async send(url: string, init: { method: string; headers?: Record<string, string> }): Promise<RegistryResponse> {
    for (let attempt = 0; ; attempt++) {
      let response: RegistryResponse;
      try {
        response = await this.options.limiter.run(() => this.attempt(url, init));
      } catch (error) {
        // Only a failed connection is worth another try; a timeout would wait again, a protocol error repeat itself.
        if (!(error instanceof RegistryError) || error.kind !== 'network' || attempt >= this.maxRetries) throw error;
        await this.sleep(this.backoff(attempt));
        continue;
      }
      if (!RETRYABLE_STATUS.has(response.status)) return response;
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), this.now());
      const wait = retryAfterMs ?? this.backoff(attempt);
      if (attempt >= this.maxRetries || wait > this.maxRetryAfterMs) {
        await discard(response);
        const kind = response.status === 429 ? 'rate-limited' : 'server';
        throw new RegistryError(kind, `${urlHostOf(url)} answered ${response.status}`, {
          status: response.status,
          ...(retryAfterMs !== undefined && { retryAfterMs }),
        });
      }
      await discard(response);
      await this.sleep(wait);
    }
  }

  private backoff(attempt: number): number {
    return 250 * 2 ** attempt + Math.floor(Math.random() * 100);
  }

  private async attempt(
    url: string,
    init: { method: string; headers?: Record<string, string> },
  ): Promise<RegistryResponse> {
    const started = this.now();
    const origin = new URL(url).origin;
    // One deadline for the whole redirect chain, not one per hop.
    const signal = AbortSignal.timeout(this.timeoutMs);
    let target = url;
    let headers = { ...init.headers };
    try {
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const response = await this.fetchOnce(target, init.method, headers, signal);
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || !location) {
          this.report(init.method, url, response.status, started);
          return response;
        }
        await discard(response);
        try {
          target = new URL(location, target).toString();
        } catch {
          throw new RegistryError('protocol', `${urlHostOf(url)}: redirect to an unreadable location`);
        }
        if (new URL(target).origin !== origin) {
          const { authorization: _dropped, ...rest } = headers;
          headers = rest;
        }
      }
      throw new RegistryError('protocol', `${urlHostOf(url)}: more than ${MAX_REDIRECTS} redirects`);
    } catch (error) {
      this.report(init.method, url, 'error', started);
      throw error;
    }
  }

  private async fetchOnce(
    url: string,
    method: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<RegistryResponse> {
    try {
      return await this.fetch(url, { method, headers, redirect: 'manual', signal });
    } catch (error) {
      throw asTransportError(error, urlHostOf(url), this.timeoutMs);
    }
  }

  private report(method: string, url: string, status: number | 'error', started: number): void {
    if (!this.options.onRequest) return;
    const parsed = new URL(url);
    this.options.onRequest({
      method,
      host: parsed.host,
      path: parsed.pathname,
      status,
      durationMs: this.now() - started,
    });
  }
}

/** A failure of fetch or of reading a body, as a RegistryError: timeouts and broken connections. */
export function asTransportError(error: unknown, host: string, timeoutMs?: number): RegistryError {
  if (error instanceof RegistryError) return error;
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new RegistryError('timeout', `${host} did not answer within ${timeoutMs ?? 'the'} ms`, { cause: error });
  }
  return new RegistryError('network', `${host}: ${errorMessage(error)}`, { cause: error });
}

/**
 * Reads a body up to `cap` bytes. A declared Content-Length over the cap is refused before any
 * byte is read, and an undeclared one is cut off as soon as it passes the cap; a stalled or
 * broken body becomes a `timeout` or `network` RegistryError instead of escaping raw.
 */
export async function readCapped(
  response: RegistryResponse,
  cap: number,
  what: string,
  host: string,
): Promise<Uint8Array> {
  const tooLarge = () => new RegistryError('protocol', `${what} is larger than ${cap} bytes`);
  if (Number(response.headers.get('content-length')) > cap) {
    await discard(response);
    throw tooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    throw asTransportError(error, host);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The host of a registry URL, for error messages (`registry` when it does not parse). */
export function urlHostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'registry';
  }
}
