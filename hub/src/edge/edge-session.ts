import type { WSContext } from 'hono/ws';
import {
  type AgentFrame,
  EDGE_CLOSE,
  EDGE_MAX_FRAME_BYTES,
  type EDGE_PROTOCOL,
  EDGE_SIGN_IN_MAX_FRAME_BYTES,
  type EdgeRequest,
  type HubFrame,
} from '../../../shared/edge/protocol';
import { newChallenge } from '../../../shared/edge/sign-in';
import type { Logger } from '../../../shared/logging/logger';
import { type EdgeRequestOptions, PendingRequests } from '../agents/edge-requests';
import type { EdgeSessionRecord } from './edge-session-record';
import type { FrameLane } from './frame-pacer';
import { type CloseVerdict, readAgentFrame } from './frame-reader';

export type HelloFrame = Extract<AgentFrame, { type: 'hello' }>;
/** The frames the session hands to its owner once signed in (the rest it answers itself). */
export type InventoryFrame = Extract<
  AgentFrame,
  { type: 'snapshot' | 'container.changed' | 'container.removed' | 'info' | 'operation' }
>;

export interface EdgeTimings {
  /** Both sides ping this often (welcome.heartbeatMs). */
  heartbeatMs: number;
  /** Nothing received for this long closes with 4006. */
  silenceLimitMs: number;
  /** No valid hello this long after the upgrade closes with 4005. */
  signInDeadlineMs: number;
  /** Deadline of a command sent to the agent. */
  requestTimeoutMs: number;
}

export type SignInVerdict = { ok: true } | { ok: false; code: number; message: string };

/** What a session needs from the hub: the sign-in decision and somewhere to deliver what arrives. */
export interface SessionOwner {
  signIn(session: EdgeSession, hello: HelloFrame): Promise<SignInVerdict>;
  /** Called after the welcome went out; the session is live from here on. */
  welcomed(session: EdgeSession, hello: HelloFrame): void;
  /** A frame for the inventory; a verdict closes the session (a watcher it never announced, a part out of order). */
  frame(session: EdgeSession, frame: InventoryFrame): CloseVerdict | undefined;
  /** Once per session, whoever closed it; `signedIn` tells whether it got past the welcome. */
  closed(session: EdgeSession, code: number, signedIn: boolean): void;
  /**
   * Where the requests are not the session's own (an edge gateway relays them for the hub): the
   * agent's replies and log streams go here instead of to the session's pending requests.
   */
  relay?(session: EdgeSession, frame: RelayedFrame): void;
}

/** The agent's answers to the hub's commands. */
export type RelayedFrame = Extract<AgentFrame, { type: 'reply' | 'stream' | 'chunk' }>;

export interface EdgeSessionOptions {
  ws: WSContext;
  /** The subprotocol selected at upgrade: hello.protocol must equal it. */
  protocol: string;
  /** The client address, where the runtime knows it. */
  address: string | undefined;
  hubVersion: string;
  timings: EdgeTimings;
  owner: SessionOwner;
  logger: Logger;
  now: () => number;
  /**
   * Milliseconds the hub's loop has stalled so far (HubStalls), not held against the agent's
   * silence or sign-in deadline. Absent where nothing measures it (hibernating sockets): 0.
   */
  stalledMs?: (() => number) | undefined;
  /**
   * Raises the socket's own frame cap to EDGE_MAX_FRAME_BYTES at the welcome, where the runtime's
   * parser holds one (Node: the ws server starts every socket at EDGE_SIGN_IN_MAX_FRAME_BYTES, so a
   * large frame from a stranger is refused before it is buffered). Absent where frames arrive
   * whole (workerd): the session's own measure on arrival is the only cap there.
   */
  setFrameLimit?: ((ws: WSContext, maxBytes: number) => void) | undefined;
  /**
   * Where the socket's owner may hibernate (Workers): the session's record is saved through this
   * whenever it changes (challenge, welcome, and the latest frame at most once a beat), and a
   * session is rebuilt from it with `resume` (docs/workers.md "Edge sockets").
   */
  saveRecord?: ((record: EdgeSessionRecord) => void) | undefined;
  /** A session rebuilt from its saved record: no new challenge, the state it was in. */
  resume?: EdgeSessionRecord | undefined;
  /**
   * Where frames wait for a slice of the hub's loop (FramePacer, Node); absent, each frame is
   * handled as it arrives. A session's frames keep their order either way.
   */
  pace?: ((work: () => void, lane: FrameLane) => void) | undefined;
  /**
   * Stops and restarts reading the socket (Node: ws's pause and resume): while a session has more
   * than PAUSE_READING_ABOVE_BYTES waiting for the pacer, what else its agent sends stays in the
   * kernel's socket buffers, not in the hub's memory. Absent: the session's queue is not bounded.
   */
  pauseReading?: ((ws: WSContext, paused: boolean) => void) | undefined;
  /**
   * When the runtime last answered the agent's ping itself: a sign of life the hub never saw.
   * With it the hub sends no pings of its own either: the agent's pings and the runtime's pongs
   * keep both sides' silence limits satisfied without waking the hub.
   */
  autoAnsweredAt?: (() => number | undefined) | undefined;
}

type State = 'connecting' | 'challenged' | 'verifying' | 'open' | 'closed';

/** Closes caused by what the peer sent (logged; the others are logged by whoever decided them). */
const PEER_FAULTS: ReadonlySet<number> = new Set([
  EDGE_CLOSE.tooLarge,
  EDGE_CLOSE.invalidFrame,
  EDGE_CLOSE.signInTimeout,
  EDGE_CLOSE.heartbeatMissed,
  EDGE_CLOSE.unsupportedVersion,
]);

/** Frames larger than this wait for the pacer even when nothing of their session is queued (a hello is about 400 bytes). */
const PACED_ABOVE_BYTES = 256;
/** Two full frames: a large host's snapshot parts (200 containers each) queue without pausing. */
const PAUSE_READING_ABOVE_BYTES = 2 * EDGE_MAX_FRAME_BYTES;

/** The frame's size in UTF-16 units or bytes, whichever the runtime handed over; 0 for an unknown kind. */
function frameLength(data: unknown): number {
  if (typeof data === 'string') return data.length;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  if (Array.isArray(data)) return data.reduce((sum: number, part: unknown) => sum + frameLength(part), 0);
  return 0;
}

/** Close reasons are at most 123 bytes of UTF-8; ours are ASCII and short, and never echo the peer's input. */
function safeReason(reason: string): string {
  return reason.replace(/[^\x20-\x7e]/g, '?').slice(0, 120);
}

/**
 * One agent connection, as docs/edge-protocol.md describes it: challenge, sign-in deadline,
 * hello, welcome, then frames both ways with heartbeats, until either side closes. Nothing here
 * throws out of a socket handler: every fault ends in a documented close code.
 */
export class EdgeSession {
  readonly challenge: string;
  readonly openedAt: number;
  agentName: string | undefined;
  keyId: string | undefined;
  private lastReceivedAt: number;
  /** HubStalls' count at the last frame (or the open): stalls after it are the hub's, not the agent's. */
  private stalledAtLastFrame: number;
  private lastSavedAt = Number.NEGATIVE_INFINITY;
  private lastPingAt: number;
  private state: State = 'connecting';
  private readonly requests: PendingRequests;
  /** Frames received and waiting for the pacer, and their size. */
  private queued = 0;
  private queuedBytes = 0;
  private readingPaused = false;

  constructor(private readonly options: EdgeSessionOptions) {
    const { resume } = options;
    this.challenge = resume?.challenge ?? newChallenge();
    this.openedAt = resume?.openedAt ?? options.now();
    this.lastReceivedAt = resume?.lastFrameAt ?? this.openedAt;
    this.stalledAtLastFrame = this.stalled();
    this.lastPingAt = options.now();
    this.requests = new PendingRequests((frame) => this.send(frame), 'edge agent');
    if (resume) {
      this.agentName = resume.agentName;
      this.keyId = resume.keyId;
      this.state = resume.agentName === undefined ? 'challenged' : 'open';
    }
  }

  /** The latest sign of life: a frame the hub handled, or a ping the runtime answered for it. */
  get lastFrameAt(): number {
    return Math.max(this.lastReceivedAt, this.options.autoAnsweredAt?.() ?? 0);
  }

  /** What a hibernating runtime keeps of this session (EdgeSessionRecordSchema). */
  record(): EdgeSessionRecord {
    return {
      protocol: this.options.protocol,
      ...(this.options.address !== undefined && { address: this.options.address }),
      openedAt: this.openedAt,
      challenge: this.challenge,
      ...(this.agentName !== undefined && { agentName: this.agentName }),
      ...(this.keyId !== undefined && { keyId: this.keyId }),
      lastFrameAt: this.lastReceivedAt,
    };
  }

  get protocol(): string {
    return this.options.protocol;
  }

  get address(): string | undefined {
    return this.options.address;
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** The socket is open: the challenge goes out. */
  open(): void {
    if (this.state !== 'connecting') return;
    this.state = 'challenged';
    // The selected subprotocol is one of EDGE_PROTOCOLS, today edge/1.0 only.
    this.send({
      type: 'challenge',
      protocol: this.options.protocol as typeof EDGE_PROTOCOL,
      challenge: this.challenge,
      hubVersion: this.options.hubVersion,
    });
    this.saveRecord();
  }

  message(data: unknown): void {
    if (this.state === 'closed') return;
    this.lastReceivedAt = this.options.now();
    this.stalledAtLastFrame = this.stalled();
    // The latest frame at most once a beat: the silence limit is two beats, so a stale record
    // read after a wake costs at most one beat of it.
    if (this.lastReceivedAt - this.lastSavedAt >= this.options.timings.heartbeatMs) this.saveRecord();
    const { pace } = this.options;
    // A small frame behind nothing of its own (a ping, a reply) is answered at once: only the
    // work a burst piles up waits, and an agent's ping is not kept behind other agents' snapshots.
    const length = frameLength(data);
    if (!pace || (this.queued === 0 && length <= PACED_ABOVE_BYTES)) {
      this.handleSafely(data);
      return;
    }
    this.queued++;
    this.queuedBytes += length;
    if (this.queuedBytes > PAUSE_READING_ABOVE_BYTES) this.setReadingPaused(true);
    pace(
      () => {
        this.queued--;
        this.queuedBytes -= length;
        if (this.state === 'closed') return;
        this.handleSafely(data);
        if (this.queued === 0) this.setReadingPaused(false);
      },
      this.state === 'open' ? 'signed-in' : 'sign-in',
    );
  }

  private setReadingPaused(paused: boolean): void {
    const { pauseReading } = this.options;
    if (!pauseReading || this.readingPaused === paused || this.state === 'closed') return;
    this.readingPaused = paused;
    try {
      pauseReading(this.options.ws, paused);
    } catch (error) {
      this.options.logger.error('edge socket could not be paused or resumed', { error: String(error) });
      this.close(EDGE_CLOSE.internalError, 'hub internal error');
    }
  }

  private handleSafely(data: unknown): void {
    try {
      this.handle(data);
    } catch (error) {
      this.options.logger.error('edge frame handling failed', { agent: this.agentName, error: String(error) });
      this.close(EDGE_CLOSE.internalError, 'hub internal error');
    }
  }

  request(request: EdgeRequest, options?: EdgeRequestOptions): Promise<unknown> {
    return this.requests.request(request, options);
  }

  /** Closes with an error frame first for the protocol's own codes, so the agent's log says why. */
  close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    const text = safeReason(reason);
    if (PEER_FAULTS.has(code)) {
      // Before sign-in anyone can cause these: debug only, so a scanner cannot flood the log.
      const level = this.state === 'open' ? 'warn' : 'debug';
      this.options.logger[level](`edge session closed (${code}): ${text}`, {
        agent: this.agentName,
        address: this.options.address,
      });
    }
    if (code >= 4000) this.send({ type: 'error', code, message: text });
    this.finish(code);
    try {
      this.options.ws.close(code, text);
    } catch {
      // Already closing: the runtime ends it either way.
    }
  }

  /** The socket closed under us (the agent left, the network dropped). */
  socketClosed(code: number): void {
    this.finish(code);
  }

  /** Called by the hub's heartbeat ticker: sign-in deadline, pings, and silence. */
  tick(now: number): void {
    const { timings } = this.options;
    // Neither deadline counts the time the hub itself stalled since the agent last spoke.
    const excused = this.stalled() - this.stalledAtLastFrame;
    // The deadline is the agent's to meet: once its hello is in, the time the hub takes to verify
    // it is not held against the agent. Counted, a hub busy with a fleet's syncs closed agents that
    // had answered in time, and their retries added to the load (bench edge-agents, 1,000 at once).
    if (this.state === 'challenged') {
      // A hello waiting for the pacer is in: the agent met the deadline.
      if (this.queued === 0 && now - this.openedAt - excused > timings.signInDeadlineMs)
        this.close(EDGE_CLOSE.signInTimeout, 'sign-in deadline passed');
      return;
    }
    if (this.state !== 'open') return;
    // Frames waiting for the pacer (their socket perhaps paused) are the agent's sign of life.
    if (this.queued === 0 && now - this.lastFrameAt - excused > timings.silenceLimitMs) {
      this.close(EDGE_CLOSE.heartbeatMissed, 'heartbeat missed');
      return;
    }
    if (this.options.autoAnsweredAt === undefined && now - this.lastPingAt >= timings.heartbeatMs) {
      this.lastPingAt = now;
      this.send({ type: 'ping' });
    }
  }

  private stalled(): number {
    return this.options.stalledMs?.() ?? 0;
  }

  send(frame: HubFrame): void {
    if (this.state === 'closed') return;
    try {
      this.options.ws.send(JSON.stringify(frame));
    } catch {
      // A socket that cannot take a frame is closing; its close event ends the session.
    }
  }

  private handle(data: unknown): void {
    // Only a hello (under 1 KiB) is allowed before the welcome: whoever reaches the port gets no more.
    const maxBytes = this.state === 'open' ? EDGE_MAX_FRAME_BYTES : EDGE_SIGN_IN_MAX_FRAME_BYTES;
    const read = readAgentFrame(data, this.options.protocol, maxBytes);
    if ('close' in read) {
      this.close(read.close.code, read.close.reason);
      return;
    }
    const { frame } = read;
    if (this.state !== 'open') {
      if (this.state === 'challenged' && frame.type === 'hello') this.verify(frame);
      else this.close(EDGE_CLOSE.invalidFrame, 'only hello is allowed before the welcome');
      return;
    }
    switch (frame.type) {
      case 'hello':
        this.close(EDGE_CLOSE.invalidFrame, 'already signed in');
        return;
      case 'ping':
        this.send({ type: 'pong' });
        return;
      case 'pong':
        return;
      case 'reply':
      case 'stream':
      case 'chunk': {
        if (this.options.owner.relay) {
          this.options.owner.relay(this, frame);
          return;
        }
        if (frame.type === 'reply') this.requests.settle(frame);
        else if (frame.type === 'stream') this.requests.stream(frame);
        else {
          const verdict = this.requests.chunk(frame);
          if (verdict) this.close(verdict.code, verdict.reason);
        }
        return;
      }
      default: {
        const verdict = this.options.owner.frame(this, frame);
        if (verdict) this.close(verdict.code, verdict.reason);
      }
    }
  }

  private verify(hello: HelloFrame): void {
    this.state = 'verifying';
    this.options.owner.signIn(this, hello).then(
      (verdict) => {
        if (this.state !== 'verifying') return;
        if (!verdict.ok) {
          this.close(verdict.code, verdict.message);
          return;
        }
        this.agentName = hello.agentName;
        this.keyId = hello.keyId;
        this.state = 'open';
        this.lastPingAt = this.options.now();
        // Before the welcome: the agent's snapshot parts (up to 4 MiB) follow it at once.
        try {
          this.options.setFrameLimit?.(this.options.ws, EDGE_MAX_FRAME_BYTES);
        } catch (error) {
          this.options.logger.error('edge session setup failed: could not raise the frame cap', {
            agent: hello.agentName,
            error: String(error),
          });
          this.close(EDGE_CLOSE.internalError, 'hub internal error');
          return;
        }
        this.send({
          type: 'welcome',
          agentName: hello.agentName,
          keyId: hello.keyId,
          heartbeatMs: this.options.timings.heartbeatMs,
          hubVersion: this.options.hubVersion,
        });
        this.saveRecord();
        try {
          this.options.owner.welcomed(this, hello);
        } catch (error) {
          this.options.logger.error('edge session setup failed', { agent: hello.agentName, error: String(error) });
          this.close(EDGE_CLOSE.internalError, 'hub internal error');
        }
      },
      (error: unknown) => {
        this.options.logger.error('edge sign-in failed unexpectedly', { error: String(error) });
        this.close(EDGE_CLOSE.internalError, 'hub internal error');
      },
    );
  }

  private saveRecord(): void {
    if (!this.options.saveRecord || this.state === 'closed') return;
    this.lastSavedAt = this.lastReceivedAt;
    try {
      this.options.saveRecord(this.record());
    } catch (error) {
      // The session goes on in memory; only a wake from hibernation would miss the change.
      this.options.logger.warn('edge session record not saved', { agent: this.agentName, error: String(error) });
    }
  }

  private finish(code: number): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.requests.failAll(`the session closed (${code})`);
    this.options.owner.closed(this, code, wasOpen);
  }
}
