import type { AgentInfo, HubFrame } from '../../../shared/edge/protocol';
import type { LogRing } from '../../../shared/logging/log-ring';
import type { Logger } from '../../../shared/logging/logger';
import type { WatcherRuntime } from '../feed/watcher-runtime';
import type { EdgeKey } from '../keys/edge-key';
import type { AgentUpdates } from '../updates/agent-updates';
import type { Timers } from './timers';

export interface SessionEnd {
  /** The hub's close code, or the one this side closed with (1006: the connection was lost or never made). */
  code: number;
  reason: string;
  /** The session got past sign-in. */
  welcomed: boolean;
  /** From the welcome to the close; 0 when never welcomed. */
  durationMs: number;
  /** This side closed it (shutdown, protocol error, silent hub). */
  byAgent: boolean;
  /** The hub's `error` frame, the HTTP answer's error, or the connection error. */
  message?: string;
  /** The hub answered the upgrade with plain HTTP (404 edge disabled, 426, 429, ...). */
  httpStatus?: number;
  /** From a 429's Retry-After. */
  retryAfterMs?: number;
}

export interface SessionTuning {
  /** Above this many buffered bytes deltas are dropped and one resync is sent (default 8 MiB). */
  sendCapBytes: number;
  /** A hub silent for two beats plus this long is dropped with 4006 (protocol: 5 s). */
  silenceSlackMs: number;
  /** From dialling to the welcome (the hub's own deadline is 10 s after the upgrade). */
  signInTimeoutMs: number;
  /** Retries of a failed full sync (Docker unreachable). */
  syncRetry: { minMs: number; maxMs: number };
  /** Requests running at once (followed log streams mostly); more are answered `busy`. */
  maxRequests: number;
  /** How long a close handshake may take before the socket is cut. */
  closeGraceMs: number;
}

export const DEFAULT_SESSION_TUNING: SessionTuning = {
  sendCapBytes: 8 * 1024 * 1024,
  silenceSlackMs: 5_000,
  signInTimeoutMs: 15_000,
  syncRetry: { minMs: 5_000, maxMs: 60_000 },
  maxRequests: 64,
  closeGraceMs: 2_000,
};

export interface HubLinkSessionOptions {
  url: string;
  key: EdgeKey;
  agentName: string;
  agentInfo(): AgentInfo;
  watchers: readonly WatcherRuntime[];
  /** The agent's update runner; without one `container.update` is answered `unsupported`. */
  updates?: AgentUpdates;
  ring: LogRing;
  logger: Logger;
  timers: Timers;
  tuning: SessionTuning;
  onWelcome?(welcome: Extract<HubFrame, { type: 'welcome' }>): void;
}
