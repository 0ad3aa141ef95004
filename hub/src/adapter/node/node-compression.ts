import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { ResponseCompression } from '../../http/response-compression';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Brotli's window: as large as the answer (up to its 16 MiB maximum), so that a record far back still serves as a match. */
const windowBits = (bytes: number) => Math.min(24, Math.max(16, Math.ceil(Math.log2(Math.max(bytes, 1)))));

/**
 * Brotli and gzip from zlib, on libuv's thread pool so a large list never stalls the event loop.
 * Brotli at quality 4, not zlib's 11: on the 19 MB list of 10,000 containers 11 takes seconds, 4
 * takes about as long as gzip (0.1-0.3 s) and, with a window as large as the list, gives 0.97 MB
 * where gzip's 32 KiB window gives 1.65 MB (docs/benchmarks.md, "compression").
 */
export const nodeCompression: ResponseCompression = {
  codings: ['br', 'gzip'],
  async compress(coding, bytes) {
    if (coding === 'br')
      return brotli(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 4,
          [constants.BROTLI_PARAM_LGWIN]: windowBits(bytes.byteLength),
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
        },
      });
    return gzipAsync(bytes);
  },
};
