/**
 * Batches pushed by one side (frames off a socket), read one item at a time by a `for await` on
 * the other. Bounded: a push that would hold more than `maxItems` unread is refused, so a reader
 * that stalls cannot make the hub buffer a remote log without end.
 */
export class LineQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private head = 0;
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly maxItems: number) {}

  /** False when the batch would overflow the bound (it is dropped, and the queue fails). */
  push(batch: readonly T[]): boolean {
    if (this.ended) return false;
    if (this.items.length - this.head + batch.length > this.maxItems) {
      this.fail(new Error(`the reader fell more than ${this.maxItems} lines behind`));
      return false;
    }
    for (const item of batch) this.items.push(item);
    this.notify();
    return true;
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.error = error;
    this.ended = true;
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.head < this.items.length) {
        const item = this.items[this.head] as T;
        this.head += 1;
        // Compact now and then, so a long stream does not keep every line it ever carried.
        if (this.head > 1024 && this.head * 2 > this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        yield item;
        continue;
      }
      if (this.error) throw this.error;
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
