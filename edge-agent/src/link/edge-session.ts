import * as v from 'valibot';
import WebSocket from 'ws';
import {
  EDGE_AGENT_NAME_HEADER,
  EDGE_CLOSE,
  EDGE_MAX_FRAME_BYTES,
  EDGE_PROTOCOL,
  EDGE_SUBPROTOCOLS,
  type HubFrame,
  HubFrameSchema,
} from '../../../shared/edge/protocol';
import { signChallenge } from '../../../shared/edge/sign-in';
import { errorMessage } from '../../../shared/error-message';
import type { UpdateOperation } from '../../../shared/update-engine';
import { sendSnapshot } from '../feed/snapshot-sync';
import { SyncScheduler } from '../feed/sync-scheduler';
import type { ContainerDelta } from '../feed/watcher-feed';
import { readRequestFrame } from '../requests/read-request';
import { EdgeRequestError } from '../requests/request-error';
import { SessionRequests } from '../requests/session-requests';
import { shortText } from './frame-checks';
import { type HttpAnswer, readHttpAnswer } from './http-answer';
import { EdgeSender } from './send-queue';
import type { HubLinkSessionOptions, SessionEnd } from './session-options';

type Phase = 'connecting' | 'challenge' | 'welcome' | 'ready' | 'closed';

/**
 * One connection to the hub (docs/edge-protocol.md): sign-in by challenge-response, a full sync
 * of every watcher, then deltas, heartbeats both ways and the hub's requests, until either side
 * closes. `ended` always resolves (never rejects) with how it ended; the agent decides what next.
 */
export class HubLinkSession {
  readonly ended: Promise<SessionEnd>;
  private resolveEnd!: (end: SessionEnd) => void;
  private readonly socket: WebSocket;
  private readonly sender: EdgeSender;
  private readonly syncs: SyncScheduler;
  private readonly requests: SessionRequests;
  private readonly timers = new Set<unknown>();
  private phase: Phase = 'connecting';
  private welcomedAt: number | undefined;
  private lastSeen = 0;
  private heartbeatMs = 0;
  private localClose: { code: number; reason: string } | undefined;
  private http: HttpAnswer | undefined;
  private message: string | undefined;

  constructor(private readonly options: HubLinkSessionOptions) {
    this.ended = new Promise((resolve) => {
      this.resolveEnd = resolve;
    });
    const { tuning } = options;
    this.socket = new WebSocket(options.url, [...EDGE_SUBPROTOCOLS], {
      maxPayload: EDGE_MAX_FRAME_BYTES,
      handshakeTimeout: tuning.signInTimeoutMs,
      perMessageDeflate: false,
      headers: { [EDGE_AGENT_NAME_HEADER]: options.agentName },
    });
    this.sender = new EdgeSender({
      socket: this.socket,
      capBytes: tuning.sendCapBytes,
      timers: options.timers,
      onOverflow: () => void this.recoverFromOverflow(),
    });
    this.syncs = new SyncScheduler({
      watchers: options.watchers,
      timers: options.timers,
      logger: options.logger,
      retry: tuning.syncRetry,
      sync: async (watcher) =>
        void (await sendSnapshot(watcher, this.sender, () => this.phase === 'ready', options.logger)),
    });
    this.requests = new SessionRequests({
      sender: this.sender,
      watchers: options.watchers,
      updates: options.updates,
      ring: options.ring,
      logger: options.logger,
      timers: options.timers,
      maxRequests: tuning.maxRequests,
      isOpen: () => this.phase === 'ready',
    });
    this.after(tuning.signInTimeoutMs, () => {
      if (this.phase !== 'ready' && this.phase !== 'closed')
        this.close(EDGE_CLOSE.signInTimeout, 'no welcome from the hub in time');
    });
    this.socket.on('open', () => {
      this.phase = 'challenge';
    });
    this.socket.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    this.socket.on('unexpected-response', (_request, response) =>
      readHttpAnswer(response, options.timers, (answer) => {
        this.http = answer;
        this.socket.terminate();
      }),
    );
    this.socket.on('error', (error) => {
      this.message ??= error.message;
    });
    this.socket.on('close', (code, reason) => this.finish(code, reason.toString()));
  }

  get isReady(): boolean {
    return this.phase === 'ready';
  }

  /** A delta from a watcher feed: sent when the session is signed in and the queue has room. */
  sendDelta(delta: ContainerDelta): void {
    if (this.phase === 'ready') this.sender.sendDelta(delta);
  }

  /** An update operation changed (docs/edge-protocol.md "Updates"); never dropped like a delta. */
  sendOperation(watcher: string, operation: UpdateOperation): void {
    if (this.phase === 'ready') this.sender.send({ type: 'operation', watcher, operation });
  }

  /** A full resync of these watchers (all when none are named). */
  resync(watchers?: string[]): void {
    if (this.phase === 'ready') this.syncs.request(watchers);
  }

  /** Closes from this side; `ended` resolves once the socket is closed (or cut after the grace). */
  close(code: number = EDGE_CLOSE.normal, reason = 'agent shutdown'): void {
    if (this.phase === 'closed' || this.localClose) return;
    this.localClose = { code, reason };
    if (this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.terminate();
      return;
    }
    this.socket.close(code, reason);
    this.after(this.options.tuning.closeGraceMs, () => this.socket.terminate());
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    this.lastSeen = this.options.timers.now();
    if (this.phase === 'closed' || this.localClose) return;
    let raw: unknown;
    try {
      if (isBinary) throw new Error('binary frame');
      raw = JSON.parse(data.toString('utf8'));
    } catch (error) {
      this.protocolError(`not a JSON text frame (${errorMessage(error)})`);
      return;
    }
    if (this.phase === 'ready') {
      const request = readRequestFrame(raw);
      if (request) {
        if ('error' in request)
          this.requests.refuse(request.id, new EdgeRequestError(request.error.code, request.error.message));
        else this.requests.start(request.id, request.request);
        return;
      }
    }
    const parsed = v.safeParse(HubFrameSchema, raw);
    if (parsed.success) this.onFrame(parsed.output);
    else this.protocolError(`invalid frame: ${parsed.issues[0]?.message ?? 'schema mismatch'}`);
  }

  private onFrame(frame: HubFrame): void {
    switch (frame.type) {
      case 'ping':
        this.sender.send({ type: 'pong' });
        return;
      case 'pong':
        return;
      case 'error':
        this.message = `hub error ${frame.code}: ${frame.message}`;
        return;
      case 'challenge':
        if (this.phase !== 'challenge') this.protocolError('unexpected challenge');
        else {
          this.phase = 'welcome';
          void this.signIn(frame.challenge);
        }
        return;
      case 'welcome':
        if (this.phase !== 'welcome') this.protocolError('unexpected welcome');
        else if (frame.agentName !== this.options.agentName || frame.keyId !== this.options.key.keyId)
          this.protocolError(`welcome for ${frame.agentName}/${frame.keyId}, not this agent`);
        else this.onWelcome(frame);
        return;
      case 'request':
        this.protocolError('request before the welcome');
        return;
      case 'cancel':
        this.requests.cancel(frame.id);
        return;
      case 'credit':
        this.requests.credit(frame.id, frame.chunks);
        return;
    }
  }

  private async signIn(challenge: string): Promise<void> {
    const { key, agentName, watchers } = this.options;
    const signature = await signChallenge(key.secretKey, challenge, EDGE_PROTOCOL, key.keyId, agentName);
    if (this.phase !== 'welcome') return;
    this.sender.send({
      type: 'hello',
      protocol: EDGE_PROTOCOL,
      keyId: key.keyId,
      agentName,
      signature,
      agent: this.options.agentInfo(),
      watchers: watchers.map((w) => w.description),
    });
  }

  private onWelcome(welcome: Extract<HubFrame, { type: 'welcome' }>): void {
    this.phase = 'ready';
    this.welcomedAt = this.options.timers.now();
    this.heartbeatMs = Math.max(50, welcome.heartbeatMs);
    this.options.onWelcome?.(welcome);
    this.beat();
    this.watchSilence();
    this.syncs.request();
  }

  /** Our ping every heartbeatMs: the hub drops a silent agent as we drop a silent hub. */
  private beat(): void {
    this.after(this.heartbeatMs, () => {
      if (this.phase !== 'ready') return;
      this.sender.send({ type: 'ping' });
      this.beat();
    });
  }

  /** Any frame is a sign of life; two beats plus the slack without one closes with 4006. */
  private watchSilence(): void {
    const limit = 2 * this.heartbeatMs + this.options.tuning.silenceSlackMs;
    const check = () => {
      if (this.phase !== 'ready') return;
      const silentFor = this.options.timers.now() - this.lastSeen;
      if (silentFor >= limit) this.close(EDGE_CLOSE.heartbeatMissed, `nothing from the hub for ${silentFor} ms`);
      else this.after(limit - silentFor, check);
    };
    this.after(limit, check);
  }

  /** Deltas were dropped: once the hub has caught up, one full resync of every watcher replaces them. */
  private async recoverFromOverflow(): Promise<void> {
    this.options.logger.warn('the hub is not keeping up: dropping deltas until a full resync');
    await this.sender.whenWritable();
    if (this.phase !== 'ready') return;
    this.sender.clearOverflow();
    this.syncs.request();
  }

  private protocolError(problem: string): void {
    this.options.logger.error(`protocol error from the hub: ${problem}; closing with ${EDGE_CLOSE.invalidFrame}`);
    this.close(EDGE_CLOSE.invalidFrame, shortText(problem, 120));
  }

  private finish(code: number, reason: string): void {
    if (this.phase === 'closed') return;
    const welcomed = this.phase === 'ready';
    this.phase = 'closed';
    for (const timer of this.timers) this.options.timers.clearTimeout(timer);
    this.timers.clear();
    this.syncs.stop();
    this.sender.close();
    this.requests.abortAll();
    const now = this.options.timers.now();
    const message = this.http?.message ?? this.message;
    this.resolveEnd({
      code: this.localClose?.code ?? code,
      reason: this.localClose?.reason ?? reason,
      welcomed,
      durationMs: welcomed && this.welcomedAt !== undefined ? now - this.welcomedAt : 0,
      byAgent: this.localClose !== undefined,
      ...(message !== undefined ? { message } : {}),
      ...(this.http ? { httpStatus: this.http.status } : {}),
      ...(this.http?.retryAfterMs !== undefined ? { retryAfterMs: this.http.retryAfterMs } : {}),
    });
  }

  private after(ms: number, callback: () => void): void {
    const handle = this.options.timers.setTimeout(() => {
      this.timers.delete(handle);
      callback();
    }, ms);
    this.timers.add(handle);
  }
}
