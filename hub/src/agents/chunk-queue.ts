/**
 * The bytes of an agent's image export (docs/edge-protocol.md "Image export") between the link that
 * receives them and the reader (the SBOM generator), bounded by credit: the link may deliver at most
 * `window` chunks the reader has not taken, and every chunk the reader takes is granted back to the
 * agent, in batches of half the window so a fast reader does not cost one frame per chunk. A reader
 * that stalls stops the agent's Docker read; nothing piles up on either side.
 */
export class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  private roomWaiters: Array<() => void> = [];
  private taken = 0;
  private grant: ((chunks: number) => void) | undefined;

  /** `window`: the chunks the agent may send before the first grant (the request's `credit`). */
  constructor(readonly window: number) {}

  /** How many chunks wait for the reader. */
  get buffered(): number {
    return this.chunks.length;
  }

  /** An edge link: how it grants the agent more chunks (a `credit` frame). */
  onGrant(grant: (chunks: number) => void): void {
    this.grant = grant;
  }

  /**
   * The next chunk, in order. Resolves once the reader has room for another (a link without
   * credit, such as an HTTP body, waits on it; an edge link's credit already bounds it).
   */
  push(bytes: Uint8Array): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.chunks.push(bytes);
    this.notify();
    if (this.chunks.length < this.window) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  end(): void {
    this.ended = true;
    this.notify();
    this.releaseRoom();
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.error = error;
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    while (true) {
      const next = this.chunks.shift();
      if (next) {
        this.took();
        yield next;
        continue;
      }
      if (this.error) throw this.error;
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private took(): void {
    this.taken += 1;
    if (this.chunks.length < this.window) this.releaseRoom();
    if (this.grant && !this.ended && this.taken >= Math.max(1, Math.floor(this.window / 2))) {
      const chunks = this.taken;
      this.taken = 0;
      this.grant(chunks);
    }
  }

  private releaseRoom(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
