import type { AgentFrame } from '../../../shared/edge/protocol';
import type { Timers } from './timers';

/** The part of a WebSocket the sender needs (ws's client socket has it). */
export interface FrameSocket {
  readonly bufferedAmount: number;
  readonly readyState: number;
  send(data: string): void;
}

const OPEN = 1;

export interface EdgeSenderOptions {
  socket: FrameSocket;
  /** Above this many bytes waiting in the socket, deltas are dropped and one resync is asked for. */
  capBytes: number;
  /** Called once per overflow, when the first delta is dropped. */
  onOverflow: () => void;
  timers: Timers;
  /** How often a waiting producer looks at the buffer again (ws has no drain event on a client socket). */
  pollMs?: number;
}

/**
 * The bounded send queue of one session. The socket's own buffer is the queue; its size is
 * `bufferedAmount`. Replies and pongs always go out (they are small and bounded by the hub's own
 * requests); bulk producers (snapshot parts, log streams) wait for room with whenWritable(); deltas
 * never wait: when the hub cannot keep up they are dropped and one full resync replaces them all.
 */
export class EdgeSender {
  private overflowed = false;
  private closed = false;
  private readonly waiters = new Set<() => void>();
  private poll: unknown;

  constructor(private readonly options: EdgeSenderOptions) {}

  get isOverflowed(): boolean {
    return this.overflowed;
  }

  /** False when the socket is not open (the frame is lost with the session). */
  send(frame: AgentFrame): boolean {
    if (this.closed || this.options.socket.readyState !== OPEN) return false;
    this.options.socket.send(JSON.stringify(frame));
    return true;
  }

  /**
   * A `chunk` frame of an image export, written as text: JSON.stringify would walk its megabyte of
   * base64 looking for characters to escape, and base64 has none.
   */
  sendChunk(id: string, seq: number, data: string): boolean {
    if (this.closed || this.options.socket.readyState !== OPEN) return false;
    this.options.socket.send(`{"type":"chunk","id":${JSON.stringify(id)},"seq":${seq},"data":"${data}"}`);
    return true;
  }

  /** A delta: sent when there is room, else dropped (and a resync asked for, once). */
  sendDelta(frame: AgentFrame): boolean {
    if (this.closed) return false;
    if (!this.overflowed && this.options.socket.bufferedAmount <= this.options.capBytes) return this.send(frame);
    if (!this.overflowed) {
      this.overflowed = true;
      this.options.onOverflow();
    }
    return false;
  }

  /** The resync that replaces the dropped deltas is under way: deltas may flow again. */
  clearOverflow(): void {
    this.overflowed = false;
  }

  /** Resolves when the buffer is at most half the cap (or the sender is closed: the caller checks). */
  whenWritable(): Promise<void> {
    if (this.closed || this.roomy()) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.add(resolve);
      this.schedulePoll();
    });
  }

  close(): void {
    this.closed = true;
    this.release();
  }

  private roomy(): boolean {
    return this.options.socket.bufferedAmount <= this.options.capBytes / 2 || this.options.socket.readyState !== OPEN;
  }

  private schedulePoll(): void {
    if (this.poll !== undefined) return;
    this.poll = this.options.timers.setTimeout(() => {
      this.poll = undefined;
      if (this.closed || this.roomy()) this.release();
      else this.schedulePoll();
    }, this.options.pollMs ?? 20);
  }

  private release(): void {
    if (this.poll !== undefined) this.options.timers.clearTimeout(this.poll);
    this.poll = undefined;
    for (const resolve of this.waiters) resolve();
    this.waiters.clear();
  }
}
