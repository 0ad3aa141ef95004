import type { AgentFrame, EdgeRequest } from '../../../shared/edge/protocol';
import type { LogRing } from '../../../shared/logging/log-ring';
import type { Logger } from '../../../shared/logging/logger';
import { sendSnapshot } from '../feed/snapshot-sync';
import type { WatcherRuntime } from '../feed/watcher-runtime';
import type { EdgeSender } from '../link/send-queue';
import type { Timers } from '../link/timers';
import type { AgentUpdates } from '../updates/agent-updates';
import { ExportCredit } from './export-credit';
import { EdgeRequestError } from './request-error';
import { replyError, runRequest, SESSION_ENDED } from './request-handlers';

export interface SessionRequestsOptions {
  sender: EdgeSender;
  watchers: readonly WatcherRuntime[];
  updates?: AgentUpdates | undefined;
  ring: LogRing;
  logger: Logger;
  timers: Timers;
  maxRequests: number;
  /** `image.export`s at once (each holds a Docker read and up to the hub's credit of chunks); `busy` beyond. */
  maxExports?: number;
  /** Replies and streams go out only while this holds (the session is signed in and open). */
  isOpen(): boolean;
}

/** Exports at once per session (the hub reads two images at a time); a third is answered `busy`. */
const DEFAULT_MAX_EXPORTS = 2;

/**
 * The hub's requests within one session: each runs with its own abort signal (a `cancel` or the
 * end of the session stops it), and gets exactly one reply: its result, or the protocol's error.
 */
export class SessionRequests {
  private readonly running = new Map<string, AbortController>();
  /** The credit of each running export, which `credit` frames add to. */
  private readonly credits = new Map<string, ExportCredit>();

  constructor(private readonly options: SessionRequestsOptions) {}

  start(id: string, request: EdgeRequest): void {
    const refusal = this.running.has(id)
      ? new EdgeRequestError('invalid', `request id ${id} is already running`)
      : this.running.size >= this.options.maxRequests
        ? new EdgeRequestError('busy', `${this.running.size} requests are running`)
        : request.method === 'image.export' && this.credits.size >= (this.options.maxExports ?? DEFAULT_MAX_EXPORTS)
          ? new EdgeRequestError('busy', `${this.credits.size} image exports are running`)
          : undefined;
    if (refusal) {
      this.reply(id, undefined, refusal);
      return;
    }
    const controller = new AbortController();
    this.running.set(id, controller);
    const { sender, logger, ring, timers, isOpen } = this.options;
    const credit = request.method === 'image.export' ? new ExportCredit(request.credit) : undefined;
    if (credit) this.credits.set(id, credit);
    let seq = 0;
    runRequest(request, {
      watcher: (name) => this.options.watchers.find((w) => w.name === name),
      ring,
      timers,
      updates: this.options.updates,
      signal: controller.signal,
      stream: async (lines) => {
        await sender.whenWritable();
        if (!controller.signal.aborted) sender.send({ type: 'stream', id, lines });
      },
      chunk: async (bytes) => {
        if (!credit || !(await credit.take(controller.signal))) return;
        await sender.whenWritable();
        if (controller.signal.aborted) return;
        const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
        sender.sendChunk(id, seq, data);
        seq += 1;
      },
      inventory: (watcher, operationId) => sendSnapshot(watcher, sender, isOpen, logger, operationId),
    })
      .then(
        (result) => this.reply(id, result),
        (error: unknown) => this.reply(id, undefined, error),
      )
      .finally(() => {
        this.running.delete(id);
        this.credits.delete(id);
      });
  }

  /** A `credit` frame: the export may send that many more chunks. Unknown ids (already answered) are ignored. */
  credit(id: string, chunks: number): void {
    this.credits.get(id)?.grant(chunks);
  }

  /** A `cancel`: the request stops and then replies. Unknown ids (already answered) are ignored. */
  cancel(id: string): void {
    this.running.get(id)?.abort();
  }

  /** The session ended: every running request stops; their replies have nowhere to go. */
  abortAll(): void {
    for (const controller of this.running.values()) controller.abort(SESSION_ENDED);
  }

  /** An answer to a request that could not even be read (unknown method, bad fields). */
  refuse(id: string, error: EdgeRequestError): void {
    this.reply(id, undefined, error);
  }

  private reply(id: string, result: unknown, error?: unknown): void {
    if (!this.options.isOpen()) return;
    let frame: AgentFrame;
    if (error !== undefined) {
      frame = { type: 'reply', id, ok: false, error: replyError(error) };
      this.options.logger.debug(`request ${id} failed: ${frame.error.code}: ${frame.error.message}`);
    } else frame = result === undefined ? { type: 'reply', id, ok: true } : { type: 'reply', id, ok: true, result };
    this.options.sender.send(frame);
  }
}
