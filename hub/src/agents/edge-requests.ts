import type { DockerLogLine } from '../../../shared/docker/docker-host';
import { decodeChunkBase64 } from '../../../shared/edge/chunk-base64';
import {
  type AgentFrame,
  EDGE_CLOSE,
  EDGE_EXPORT_CHUNK_BYTES,
  type EdgeRequest,
  type HubFrame,
} from '../../../shared/edge/protocol';
import type { CloseVerdict } from '../edge/frame-reader';

/** Why a request failed: the agent's own error codes, or the hub's (deadline, link gone, caller gave up). */
export type EdgeRequestFailure =
  | 'not-found'
  | 'unsupported'
  | 'invalid'
  | 'busy'
  | 'failed'
  | 'conflict'
  | 'timeout'
  | 'disconnected'
  | 'aborted';

export class EdgeRequestError extends Error {
  constructor(
    readonly code: EdgeRequestFailure,
    message: string,
  ) {
    super(message);
    this.name = 'EdgeRequestError';
  }
}

export interface EdgeRequestOptions {
  /** No answer within this long rejects with `timeout` (a late reply is ignored); none: no deadline. */
  timeoutMs?: number | undefined;
  /** The deadline restarts with every `stream` frame: an idle timeout for a log download. */
  idle?: boolean;
  onStream?: (lines: DockerLogLine[]) => void;
  /** Aborting sends `cancel` and rejects with `aborted` at once. */
  signal?: AbortSignal | undefined;
  /** `image.export`: where the bytes of its `chunk` frames go (the deadline restarts with each, as with `idle`). */
  chunks?: ChunkSink | undefined;
}

/** The reader of an export's bytes (ChunkQueue). */
export interface ChunkSink {
  /** The next chunk in order; resolves once the reader has room (links without credit wait on it). */
  push(bytes: Uint8Array): Promise<void>;
  /** An edge link registers how the reader grants the agent more chunks. */
  onGrant(grant: (chunks: number) => void): void;
}

type ReplyFrame = Extract<AgentFrame, { type: 'reply' }>;
type StreamFrame = Extract<AgentFrame, { type: 'stream' }>;
type ChunkFrame = Extract<AgentFrame, { type: 'chunk' }>;

/** Where an export stands: the seq the next chunk must carry, and the chunks the agent may still send. */
interface ChunkState {
  sink: ChunkSink;
  nextSeq: number;
  credit: number;
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: EdgeRequestError): void;
  options: EdgeRequestOptions;
  timer: ReturnType<typeof setTimeout> | undefined;
  detach: (() => void) | undefined;
  chunks: ChunkState | undefined;
}

/**
 * Request/reply correlation of one session (docs/edge-protocol.md "Commands"): every request gets
 * an id, exactly one reply settles it, a deadline or the end of the session rejects it, and a
 * reply that comes too late finds nothing and is dropped.
 */
export class PendingRequests {
  private readonly pending = new Map<string, Pending>();
  private counter = 0;

  constructor(
    private readonly send: (frame: HubFrame) => void,
    private readonly label: string,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  request(request: EdgeRequest, options: EdgeRequestOptions = {}): Promise<unknown> {
    if (options.signal?.aborted)
      return Promise.reject(new EdgeRequestError('aborted', `${this.label}: ${request.method} aborted`));
    this.counter += 1;
    const id = this.counter.toString(36);
    return new Promise<unknown>((resolve, reject) => {
      const entry: Pending = {
        method: request.method,
        resolve,
        reject,
        options,
        timer: undefined,
        detach: undefined,
        chunks: undefined,
      };
      if (request.method === 'image.export' && options.chunks) {
        const state: ChunkState = { sink: options.chunks, nextSeq: 0, credit: request.credit };
        entry.chunks = state;
        // The reader grants only after it took a chunk, so an agent that predates image.export
        // (it answers `unsupported` at once) never receives a credit frame it would not know.
        options.chunks.onGrant((chunks) => {
          if (this.pending.get(id) !== entry) return;
          state.credit += chunks;
          // Waiting for the agent starts again: a slow reader's pause is not the agent's silence.
          this.arm(id, entry);
          this.trySend({ type: 'credit', id, chunks });
        });
      }
      this.pending.set(id, entry);
      this.arm(id, entry);
      const signal = options.signal;
      if (signal) {
        const onAbort = () => {
          if (!this.finish(id)) return;
          this.trySend({ type: 'cancel', id });
          reject(new EdgeRequestError('aborted', `${this.label}: ${request.method} aborted`));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        entry.detach = () => signal.removeEventListener('abort', onAbort);
      }
      // Sent last: a send that fails (socket closing) must find the entry to reject.
      if (!this.trySend({ type: 'request', id, request }) && this.finish(id)) {
        reject(new EdgeRequestError('disconnected', `${this.label}: the link closed`));
      }
    });
  }

  /** False for an id nobody waits for (late, or never sent): the caller drops the frame. */
  settle(frame: ReplyFrame): boolean {
    const entry = this.pending.get(frame.id);
    if (!entry || !this.finish(frame.id)) return false;
    if (frame.ok) entry.resolve(frame.result);
    else entry.reject(new EdgeRequestError(frame.error.code, `${this.label}: ${frame.error.message}`));
    return true;
  }

  stream(frame: StreamFrame): boolean {
    const entry = this.pending.get(frame.id);
    if (!entry?.options.onStream) return false;
    if (entry.options.idle) this.arm(frame.id, entry);
    entry.options.onStream(frame.lines);
    return true;
  }

  /**
   * One chunk of an `image.export` (docs/edge-protocol.md "Image export"). A chunk whose request
   * nobody waits for is dropped: chunks already on the way when the hub cancelled arrive after it.
   * One out of order, beyond the credit the hub granted, larger than a chunk may be, or for a
   * request that is no export, is the agent breaking the protocol: the verdict closes the session.
   */
  chunk(frame: ChunkFrame): CloseVerdict | undefined {
    const entry = this.pending.get(frame.id);
    if (!entry) return undefined;
    const state = entry.chunks;
    const refuse = (reason: string): CloseVerdict => ({ code: EDGE_CLOSE.invalidFrame, reason });
    if (!state) return refuse(`chunk for a ${entry.method} request`);
    if (frame.seq !== state.nextSeq) return refuse(`chunk ${frame.seq} out of order (expected ${state.nextSeq})`);
    if (state.credit <= 0) return refuse('chunk beyond the credit the hub granted');
    const bytes = decodeChunkBase64(frame.data);
    if (!bytes) return refuse('chunk data is not base64');
    if (bytes.length > EDGE_EXPORT_CHUNK_BYTES) return refuse('chunk larger than 1 MiB');
    state.nextSeq += 1;
    state.credit -= 1;
    this.arm(frame.id, entry);
    void state.sink.push(bytes);
    return undefined;
  }

  /** The session ended: every waiting request fails now. */
  failAll(message: string): void {
    for (const [id, entry] of [...this.pending]) {
      this.finish(id);
      entry.reject(new EdgeRequestError('disconnected', `${this.label}: ${message}`));
    }
  }

  private arm(id: string, entry: Pending): void {
    if (entry.timer) clearTimeout(entry.timer);
    const timeoutMs = entry.options.timeoutMs;
    if (timeoutMs === undefined) return;
    entry.timer = setTimeout(() => {
      if (!this.finish(id)) return;
      this.trySend({ type: 'cancel', id });
      entry.reject(
        new EdgeRequestError('timeout', `${this.label}: no answer to ${entry.method} within ${timeoutMs} ms`),
      );
    }, timeoutMs);
  }

  private finish(id: string): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.detach?.();
    return true;
  }

  private trySend(frame: HubFrame): boolean {
    try {
      this.send(frame);
      return true;
    } catch {
      return false;
    }
  }
}
