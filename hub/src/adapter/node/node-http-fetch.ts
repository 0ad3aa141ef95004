import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type {
  RegistryFetch,
  RegistryResponse,
  RegistryResponseBody,
} from '../../../../shared/registry/registry-transport';

/** What fetch sends when the caller does not say: registries see the same request either way. */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = { accept: '*/*', 'user-agent': 'node' };
/** Statuses whose response has no body (Fetch standard), and methods whose answer has none. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * A RegistryFetch over node:http and node:https, for the registry transport of a short-lived
 * process (`dockwatch check`). In a fresh process, Node's fetch costs about 1.6 ms of CPU per
 * request for its first hundred (undici loaded and compiled, web streams, resource timing
 * entries), this a third of it (docs/benchmarks.md "cli"); it answers with NodeHttpResponse, not a
 * Response, for the same reason. It does what RegistryTransport asks of fetch, no more: redirects
 * are never followed (the transport follows them itself, `redirect: 'manual'`), nothing is
 * decompressed (no Accept-Encoding is sent), and failures reject as fetch's do (`fetch failed` with
 * the cause; the signal's reason once aborted). Idle keep-alive sockets never hold the process.
 */
export function createNodeHttpFetch(options: { ca?: string } = {}): RegistryFetch {
  const http = new HttpAgent({ keepAlive: true });
  const https = new HttpsAgent({ keepAlive: true, ...(options.ca !== undefined && { ca: options.ca }) });
  return (input, init) =>
    new Promise<RegistryResponse>((resolve, reject) => {
      const url = new URL(input);
      const method = (init.method ?? 'GET').toUpperCase();
      const body = requestBody(init.body);
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason);
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') return reject(new TypeError('fetch failed: not an http(s) URL'));
      const send = secure ? httpsRequest : httpRequest;
      const request = send(url, { method, headers: requestHeaders(init.headers), agent: secure ? https : http });
      let response: IncomingMessage | undefined;
      const abort = () => {
        // Before the answer the request fails; after it, the body being read does, with the same reason.
        if (response) response.destroy(signal?.reason);
        else request.destroy(signal?.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      const release = () => signal?.removeEventListener('abort', abort);
      request.once('error', (error) => {
        release();
        reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
      });
      request.once('response', (answer) => {
        response = answer;
        answer.once('close', release);
        const status = answer.statusCode ?? 0;
        if (status < 200 || status > 599) {
          answer.destroy();
          return reject(new TypeError('fetch failed', { cause: new Error(`unexpected status ${status}`) }));
        }
        const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
        if (empty) answer.resume();
        resolve(new NodeHttpResponse(status, answer.rawHeaders, empty ? null : answer));
      });
      request.end(body);
    });
}

/** Header names as fetch's Headers gives them: case-insensitive, repeated ones joined with ", ". */
class AnswerHeaders {
  private readonly values = new Map<string, string>();

  constructor(raw: readonly string[]) {
    for (let index = 0; index + 1 < raw.length; index += 2) {
      const name = (raw[index] ?? '').toLowerCase();
      const value = raw[index + 1] ?? '';
      const earlier = this.values.get(name);
      this.values.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
    }
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }
}

/**
 * The answer as the registry code reads it (RegistryResponse): the body is the IncomingMessage
 * itself, read chunk by chunk, and like a Response's it can be read once.
 */
class NodeHttpResponse implements RegistryResponse {
  readonly ok: boolean;
  readonly headers: AnswerHeaders;
  readonly body: RegistryResponseBody | null;

  constructor(
    readonly status: number,
    rawHeaders: readonly string[],
    message: IncomingMessage | null,
  ) {
    this.ok = status >= 200 && status <= 299;
    this.headers = new AnswerHeaders(rawHeaders);
    this.body = message && messageBody(message);
  }

  async text(): Promise<string> {
    if (!this.body) return '';
    const reader = this.body.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      chunks.push(value);
    }
    // As Response.text() decodes: UTF-8, a byte order mark dropped.
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

/** An IncomingMessage as a body that is read once: a second reader fails as a used Response's does. */
function messageBody(message: IncomingMessage): RegistryResponseBody {
  let taken = false;
  const cancel = async (reason?: unknown) => {
    message.destroy(reason instanceof Error ? reason : undefined);
  };
  return {
    getReader() {
      if (taken) throw new TypeError('Body is unusable: Body has already been read');
      taken = true;
      const chunks = message[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      return {
        read: async () => {
          const next = await chunks.next();
          return next.done ? { done: true } : { done: false, value: next.value };
        },
        cancel,
      };
    },
    cancel,
  };
}

function requestHeaders(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  // Not through fetch's Headers class: loading it costs the process undici (the registry code passes a record).
  const pairs: Iterable<readonly [string, string]> =
    headers === undefined
      ? []
      : Array.isArray(headers) || Symbol.iterator in headers
        ? (headers as Iterable<readonly [string, string]>)
        : Object.entries(headers);
  for (const [name, value] of pairs) out[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(DEFAULT_HEADERS)) out[name] ??= value;
  return out;
}

/** Registry requests carry no body; a string or bytes is sent as is, anything else refused. */
function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('fetch failed: only a string or bytes can be sent');
}
