import { errorBody } from '../../http/http-error';

/** How much of a body over the limit is read and thrown away, as a multiple of the limit. */
const DRAIN_FACTOR = 8;

/**
 * The first `keep` bytes of a stream. Past them it goes on reading, discarding, up to `drain` bytes
 * in all: a client still uploading when the answer comes back and the connection closes gets a
 * reset instead of that answer. Beyond `drain` the rest is left unread.
 */
async function readBody(
  stream: ReadableStream<Uint8Array>,
  keep: number,
  drain: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < drain) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size < keep) chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(Math.min(size, keep));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

/**
 * The request the Worker hands to the hub's Durable Object, its body already read here: all of it,
 * or one byte past `maxBytes`, enough for the hub to answer 413 just as it would have.
 *
 * Why: a stub's fetch() given the client's own body stream pumps it into the object in the
 * background. When the hub answers without reading the body (401, 403, 404, 405, 413, 429), the
 * Worker's response goes out while that pump still reads the client's stream, and workerd throws
 * "Can't read from request stream after response has been sent" in the Worker, uncaught; the
 * client's connection is dropped, and under `wrangler dev` a following request fails with 503.
 * A buffer has no such pump, and the hub's limit caps what is held. Reading the body of a GET or
 * HEAD too (the hub reads none) leaves the client's connection fit for its next request.
 *
 * Answers a Response instead when the body cannot be read (the client went away mid-upload).
 */
export async function withBufferedBody(request: Request, maxBytes: number): Promise<Request | Response> {
  if (request.body === null) return request;
  let body: Uint8Array<ArrayBuffer>;
  try {
    body = await readBody(request.body, maxBytes + 1, DRAIN_FACTOR * maxBytes);
  } catch {
    // Every answer carries a request id, this one too, though its client is most likely gone.
    return Response.json(errorBody(400, 'The request body could not be read'), {
      status: 400,
      headers: { 'x-request-id': crypto.randomUUID() },
    });
  }
  const headers = new Headers(request.headers);
  // The buffer's own length goes with it: a cut body must not claim the client's length.
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  // A GET or HEAD goes on without its body: the hub reads none there, and the Request constructor
  // refuses one (or any request made from one that had a body) for those methods.
  if (request.method === 'GET' || request.method === 'HEAD')
    return new Request(request.url, { method: request.method, headers });
  return new Request(request, { headers, body });
}
