import { errorMessage } from '../../../../shared/error-message';
import { type DeliveryContext, DeliveryError } from '../notification-provider';
import { scrubSecrets } from './secret-fragments';

/** Who is delivering: `ntfy.home` in messages, and the secret fragments never to quote. */
export interface DeliveryTarget {
  component: string;
  secrets: readonly string[];
}

export interface HttpDeliveryRequest {
  url: string;
  method?: 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** Sent as `application/json` (unless `headers` name another content-type). */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`. */
  form?: URLSearchParams;
  /** A service's own wait hint in its error body (Discord `retry_after`, Matrix `retry_after_ms`), in ms. */
  retryAfterFromBody?: (body: unknown) => number | undefined;
  /** A service whose own statuses mean otherwise than HTTP's (Apprise's 424) decides here. */
  isRetryable?: (status: number) => boolean;
}

export interface HttpAnswer {
  status: number;
  /** The start of the answer (bounded), for services that report failures inside a 200. */
  text: string;
}

/** How much of an answer is read: enough for any error body, bounded against a huge one. */
const MAX_READ = 16 * 1024;
/** How much of an error answer is quoted in `lastError`. */
const MAX_EXCERPT = 300;

/**
 * One HTTP request of a notification, through the runtime's fetch and aborted by the delivery
 * timeout. A 2xx is returned; anything else throws DeliveryError: network failures, timeouts, 5xx,
 * 408 and 429 are retryable, other answers are not (retrying cannot fix a 401 or a 404). Redirects
 * are not followed: a webhook that moved is a configuration to fix, and following would resend the
 * body (and perhaps credentials) to a host nobody configured.
 */
export async function deliverHttp(
  context: DeliveryContext,
  target: DeliveryTarget,
  request: HttpDeliveryRequest,
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = request.form.toString();
  }
  let response: Response;
  try {
    response = await context.fetch(request.url, {
      method: request.method ?? 'POST',
      headers,
      ...(body !== undefined && { body }),
      redirect: 'manual',
      signal: context.signal,
    });
  } catch (error) {
    throw networkError(context, target, error);
  }
  let text: string;
  try {
    text = await readBounded(response);
  } catch (error) {
    throw networkError(context, target, error);
  }
  if (response.status >= 200 && response.status < 300) return { status: response.status, text };
  throw answerError(target, response.status, text, {
    retryable: (request.isRetryable ?? isRetryableStatus)(response.status),
    retryAfterMs:
      retryAfter(response.headers.get('retry-after'), context.now()) ?? bodyHint(text, request.retryAfterFromBody),
  });
}

/** True for answers worth retrying: the receiver's trouble, a timeout, or a rate limit. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** The DeliveryError of a non-2xx answer, quoting a short, secret-free excerpt of it. */
export function answerError(
  target: DeliveryTarget,
  status: number,
  text: string,
  options: { retryable?: boolean; retryAfterMs?: number | undefined } = {},
): DeliveryError {
  const redirect = status >= 300 && status < 400 ? ' (a redirect: configure the final URL)' : '';
  const excerpt = excerptOf(text, target.secrets);
  return new DeliveryError(
    `${target.component}: answered ${status}${redirect}${excerpt ? `: ${excerpt}` : ''}`,
    options.retryable ?? isRetryableStatus(status),
    status,
    options.retryAfterMs,
  );
}

/** Whitespace collapsed, secrets replaced, cut short. */
export function excerptOf(text: string, secrets: readonly string[]): string {
  const flat = scrubSecrets(text.replace(/\s+/g, ' ').trim(), secrets);
  return flat.length > MAX_EXCERPT ? `${flat.slice(0, MAX_EXCERPT)}…` : flat;
}

function networkError(context: DeliveryContext, target: DeliveryTarget, error: unknown): DeliveryError {
  if (context.signal.aborted) {
    return new DeliveryError(`${target.component}: no answer before the delivery timeout`, true);
  }
  // undici says only "fetch failed"; the cause names the problem (ECONNREFUSED, ENOTFOUND, a TLS error),
  // in its message or, for an AggregateError over several addresses, in its code only.
  const cause = error instanceof Error ? (error.cause as { message?: unknown; code?: unknown } | undefined) : undefined;
  const reason =
    (typeof cause?.message === 'string' && cause.message) ||
    (typeof cause?.code === 'string' && cause.code) ||
    errorMessage(error);
  return new DeliveryError(`${target.component}: request failed: ${scrubSecrets(reason, target.secrets)}`, true);
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (text.length < MAX_READ) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text.slice(0, MAX_READ);
}

/** `Retry-After` as seconds or an HTTP date (RFC 9110 §10.2.3), in ms from now. */
export function retryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function bodyHint(text: string, read: HttpDeliveryRequest['retryAfterFromBody']): number | undefined {
  if (!read) return undefined;
  try {
    const ms = read(JSON.parse(text));
    return ms !== undefined && Number.isFinite(ms) && ms >= 0 ? Math.ceil(ms) : undefined;
  } catch {
    return undefined;
  }
}

/** Basic credentials for an Authorization header (UTF-8, as RFC 7617 recommends). */
export function basicAuthorization(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
