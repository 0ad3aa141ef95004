import type { MiddlewareHandler } from 'hono';
import type { ContentCoding, ResponseCompression } from '../../../shared/http/response-compression';
import type { HubEnv } from './hub-env';

export type { ContentCoding, ResponseCompression };

/** Answers below this many bytes go as they are: a gzip header and a round of CPU buy nothing there. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * JSON only: the API's answers, built whole in memory before they are sent. Everything else is left
 * alone: SSE (text/event-stream) and the log download stream as they are produced, so holding them
 * back to compress would break them; the UI's assets and the gzip log download come compressed.
 */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;
const VARIES_ON_ENCODING = /(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i;

/** CompressionStream's gzip: in every runtime the core runs on. */
export const webStreamCompression: ResponseCompression = {
  codings: ['gzip'],
  async compress(coding, bytes) {
    if (coding !== 'gzip') throw new Error(`compression: CompressionStream has no ${coding} here`);
    const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  },
};

/** The platform compresses the answers itself (Workers): the hub adds nothing. */
export const platformCompression: ResponseCompression = {
  codings: [],
  compress: async (_coding, bytes) => bytes,
};

/**
 * The coding to answer with: the client's highest q among what the runtime offers, the runtime's
 * order breaking ties; `*` stands for any coding not named; q=0 refuses one.
 */
export function negotiateCoding(
  acceptEncoding: string | undefined,
  offered: readonly ContentCoding[],
): ContentCoding | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (name === '') continue;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  let best: { coding: ContentCoding; weight: number } | undefined;
  for (const coding of offered) {
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (weight > 0 && (best === undefined || weight > best.weight)) best = { coding, weight };
  }
  return best?.coding;
}

/** Whether this answer is one the middleware may hold back and compress at all. */
function compressible(request: Request, res: Response): boolean {
  const { headers } = res;
  if (res.body === null || request.headers.has('upgrade')) return false;
  if (res.status < 200 || res.status === 204 || res.status === 206 || res.status === 304) return false;
  if (headers.has('content-encoding') || headers.has('transfer-encoding') || headers.has('content-range')) return false;
  if (NO_TRANSFORM.test(headers.get('cache-control') ?? '')) return false;
  return JSON_TYPE.test(headers.get('content-type') ?? '');
}

/**
 * Compresses the JSON answers above the threshold for a client that accepts it (issue 30 item 4):
 * a list of 10,000 containers is about 10 times smaller with gzip. The body is in memory already, so
 * it is compressed whole and sent with its Content-Length. HEAD gets GET's headers (the runtime
 * drops the body). A strong ETag becomes weak: the bytes differ from the identity answer's.
 */
export function compressResponses(compression: ResponseCompression): MiddlewareHandler<HubEnv> {
  return async function compressAnswer(c, next) {
    await next();
    const answer = c.res;
    if (compression.codings.length === 0 || !compressible(c.req.raw, answer)) return;
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const headers = new Headers(answer.headers);
    const init = () => ({ status: answer.status, statusText: answer.statusText, headers });
    // Unset first: Hono's setter would copy the old answer's headers over the new ones.
    c.res = undefined;
    if (bytes.byteLength < COMPRESSION_THRESHOLD_BYTES) {
      c.res = new Response(bytes, init());
      return;
    }
    const vary = headers.get('vary');
    if (!vary || !VARIES_ON_ENCODING.test(vary))
      headers.set('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const coding = negotiateCoding(c.req.header('accept-encoding'), compression.codings);
    if (coding === undefined) {
      c.res = new Response(bytes, init());
      return;
    }
    const compressed = await compression.compress(coding, bytes);
    headers.set('content-encoding', coding);
    headers.set('content-length', String(compressed.byteLength));
    const etag = headers.get('etag');
    if (etag && !etag.startsWith('W/')) headers.set('etag', `W/${etag}`);
    c.res = new Response(compressed as Uint8Array<ArrayBuffer>, init());
  };
}
