import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '../../../../shared/registry/registry-transport';

/** What fetch sends when the caller does not say: registries see the same request either way. */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = { accept: '*/*', 'user-agent': 'node' };
/** Statuses whose response has no body (Fetch standard), and methods whose answer has none. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * A FetchLike over node:http and node:https, for the registry transport of a short-lived process
 * (`dockwatch check`). In a fresh process, Node's fetch costs about 1.6 ms of CPU per request
 * for its first hundred (undici loaded and compiled, web streams, resource timing entries), this
 * a third of it (docs/benchmarks.md "cli"). It does what RegistryTransport asks of fetch, no more:
 * redirects are never followed (the transport follows them itself, `redirect: 'manual'`), nothing
 * is decompressed (no Accept-Encoding is sent), and failures reject as fetch's do (`fetch failed`
 * with the cause; the signal's reason once aborted). Idle keep-alive sockets never hold the process.
 */
export function createNodeHttpFetch(options: { ca?: string } = {}): FetchLike {
  const http = new HttpAgent({ keepAlive: true });
  const https = new HttpsAgent({ keepAlive: true, ...(options.ca !== undefined && { ca: options.ca }) });
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
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
        // As pairs: Response fills its own Headers from them once.
        const headers: [string, string][] = [];
        const raw = answer.rawHeaders;
        for (let index = 0; index + 1 < raw.length; index += 2) headers.push([raw[index] ?? '', raw[index + 1] ?? '']);
        const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
        if (empty) answer.resume();
        const stream = empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
        resolve(new Response(stream, { status, statusText: answer.statusMessage ?? '', headers }));
      });
      request.end(body);
    });
}

function requestHeaders(headers: RequestInit['headers']): Record<string, string> {
  const given = new Headers(headers);
  const out: Record<string, string> = {};
  for (const [name, value] of given) out[name] = value;
  for (const [name, value] of Object.entries(DEFAULT_HEADERS)) out[name] ??= value;
  return out;
}

/** Registry requests carry no body; a string or bytes is sent as is, anything else refused. */
function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('fetch failed: only a string or bytes can be sent');
}
