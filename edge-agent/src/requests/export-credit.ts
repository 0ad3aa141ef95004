import { EDGE_EXPORT_MAX_CREDIT } from '../../../shared/edge/protocol';

/**
 * The hub's credit for one `image.export` (docs/edge-protocol.md "Image export"): how many more
 * chunks the agent may send. The request brings the first credit, `credit` frames add to it; the
 * sender takes one per chunk and waits while there is none, so the Docker read it pulls from waits
 * too. Never more than EDGE_EXPORT_MAX_CREDIT outstanding, whatever a hub grants.
 */
export class ExportCredit {
  private wake: (() => void) | undefined;

  constructor(private available: number) {
    this.available = Math.min(available, EDGE_EXPORT_MAX_CREDIT);
  }

  /** Chunks the agent may still send. */
  get remaining(): number {
    return this.available;
  }

  grant(chunks: number): void {
    this.available = Math.min(this.available + chunks, EDGE_EXPORT_MAX_CREDIT);
    this.notify();
  }

  /** Takes one chunk's credit, waiting for a grant when there is none; false when `signal` aborted first. */
  async take(signal: AbortSignal): Promise<boolean> {
    while (this.available <= 0) {
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    if (signal.aborted) return false;
    this.available -= 1;
    return true;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
