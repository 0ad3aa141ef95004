/** The content codings the hub produces (RFC 9110 §8.4.1). */
export type ContentCoding = 'br' | 'gzip';

/**
 * How the runtime compresses an answer's bytes: what a runtime entry hands the hub's core
 * (hub/src/hub-deps.ts). Node brings zlib (brotli and gzip, off the event loop:
 * hub/src/adapter/node/node-compression.ts); the portable default is CompressionStream's gzip
 * (hub/src/http/response-compression.ts). Where the platform compresses on the way out
 * (Cloudflare, and Miniflare as it emulates it), the runtime offers no coding: compressing here too
 * would only cost the object CPU time.
 */
export interface ResponseCompression {
  /** What this runtime can produce, preferred first; empty: the hub never compresses. */
  readonly codings: readonly ContentCoding[];
  compress(coding: ContentCoding, bytes: Uint8Array): Promise<Uint8Array>;
}
