/**
 * Pull-based reading of exact byte counts from a stream of chunks of any size: what the tar reader
 * needs to cut 512-byte headers and sized bodies out of `docker save` and layer streams. It holds
 * at most one source chunk (plus the bytes asked for in one `readExact`), so memory stays bounded
 * by the producer's chunk size, never by the stream's length.
 */

/** Thrown when the stream ends before the bytes a format promised. */
export class TruncatedStreamError extends Error {
  constructor(what: string) {
    super(`truncated: the stream ended inside ${what}`);
    this.name = 'TruncatedStreamError';
  }
}

export type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** A Web stream as an async iterable (workerd and Node both iterate them, but TS's DOM lib does not say so). */
export function chunksOf(source: ByteSource): AsyncIterable<Uint8Array> {
  if (Symbol.asyncIterator in source) return source as AsyncIterable<Uint8Array>;
  const stream = source as ReadableStream<Uint8Array>;
  return {
    async *[Symbol.asyncIterator]() {
      const reader = stream.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    },
  };
}

export class ByteReader {
  private readonly iterator: AsyncIterator<Uint8Array>;
  private chunk: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private ended = false;
  /** Bytes handed out so far: positions in error messages. */
  position = 0;

  constructor(source: ByteSource) {
    this.iterator = chunksOf(source)[Symbol.asyncIterator]();
  }

  private get available(): number {
    return this.chunk.length - this.offset;
  }

  /** Loads the next non-empty chunk; false at the end of the stream. */
  private async fill(): Promise<boolean> {
    while (!this.ended && this.available === 0) {
      const next = await this.iterator.next();
      if (next.done) {
        this.ended = true;
        return false;
      }
      this.chunk = next.value;
      this.offset = 0;
    }
    return this.available > 0;
  }

  /** Up to `count` bytes without consuming them (fewer only at the end of the stream). */
  async peek(count: number): Promise<Uint8Array> {
    if (!(await this.fill())) return new Uint8Array(0);
    if (this.available >= count) return this.chunk.subarray(this.offset, this.offset + count);
    // Gather into one chunk so that the peeked bytes stay the next ones read.
    const gathered = new Uint8Array(count);
    let length = 0;
    while (length < count && (await this.fill())) {
      const take = Math.min(count - length, this.available);
      gathered.set(this.chunk.subarray(this.offset, this.offset + take), length);
      this.offset += take;
      length += take;
    }
    const rest = this.chunk.subarray(this.offset);
    const merged = new Uint8Array(length + rest.length);
    merged.set(gathered.subarray(0, length));
    merged.set(rest, length);
    this.chunk = merged;
    this.offset = 0;
    return merged.subarray(0, Math.min(count, length));
  }

  /**
   * Exactly `count` bytes, copied (the caller may keep them); undefined when the stream ends
   * before the first byte, TruncatedStreamError when it ends after it.
   */
  async readExact(count: number, what: string): Promise<Uint8Array | undefined> {
    const out = new Uint8Array(count);
    let length = 0;
    while (length < count) {
      if (!(await this.fill())) {
        if (length === 0) return undefined;
        throw new TruncatedStreamError(what);
      }
      const take = Math.min(count - length, this.available);
      out.set(this.chunk.subarray(this.offset, this.offset + take), length);
      this.offset += take;
      length += take;
    }
    this.position += count;
    return out;
  }

  /** The next `count` bytes as the source's own chunks (views: use each before asking for the next). */
  async *stream(count: number, what: string): AsyncGenerator<Uint8Array> {
    let left = count;
    while (left > 0) {
      if (!(await this.fill())) throw new TruncatedStreamError(what);
      const take = Math.min(left, this.available);
      const piece = this.chunk.subarray(this.offset, this.offset + take);
      this.offset += take;
      this.position += take;
      left -= take;
      yield piece;
    }
  }

  async skip(count: number, what: string): Promise<void> {
    for await (const _ of this.stream(count, what)) {
      // Discarded: a tar stream can only be skipped by reading it.
    }
  }

  /** Everything left, as the source's own chunks. */
  async *rest(): AsyncGenerator<Uint8Array> {
    while (await this.fill()) {
      const piece = this.chunk.subarray(this.offset);
      this.offset = this.chunk.length;
      this.position += piece.length;
      yield piece;
    }
  }

  /** True once every byte was read. */
  async atEnd(): Promise<boolean> {
    return !(await this.fill());
  }

  /** Stops the source (a failed or abandoned read must not leave a download running). */
  async close(): Promise<void> {
    this.ended = true;
    await this.iterator.return?.();
  }
}
