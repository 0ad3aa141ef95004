import type { DockerHost } from '../../../shared/docker/docker-host';
import type { DockerEndpoint, WatcherConfig } from '../../../shared/docker/watcher-config';
import { EDGE_CLOSE } from '../../../shared/edge/protocol';
import { toBase64 } from '../../../shared/edge/sign-in';
import { errorMessage } from '../../../shared/error-message';
import type { LogRing } from '../../../shared/logging/log-ring';
import type { Logger } from '../../../shared/logging/logger';
import type { LogLevel } from '../../../shared/schemas/log-entry';
import type { HealthTiming, ShutdownLimits } from '../../../shared/update-engine';
import { createEngineHost } from '../docker';
import { WatcherFeed } from '../feed/watcher-feed';
import { describeWatcher, type WatcherRuntime } from '../feed/watcher-runtime';
import type { AgentHookSettings } from '../hooks/agent-update-hooks';
import type { EdgeKey } from '../keys/edge-key';
import { type BackoffOptions, createBackoff, DEFAULT_BACKOFF } from '../link/backoff';
import { closeMeaning } from '../link/close-codes';
import { HubLinkSession } from '../link/edge-session';
import { edgeSocketUrl } from '../link/hub-url';
import { DEFAULT_SESSION_TUNING, type SessionEnd, type SessionTuning } from '../link/session-options';
import { realTimers, sleep, type Timers } from '../link/timers';
import { AgentUpdates } from '../updates/agent-updates';
import { UpdateJournalFile } from '../updates/update-journal-file';
import { collectAgentInfo, readAgentVersion } from './agent-info';

export interface EdgeAgentOptions {
  /** The hub: `wss://host:3000`, `https://host`, or the endpoint itself (made into it by edgeSocketUrl(); throws if it is no URL). */
  url: string;
  key: EdgeKey;
  agentName: string;
  watchers: readonly WatcherConfig[];
  logger: Logger;
  /** The ring `log.entries` answers from (the one the logger writes to). */
  ring: LogRing;
  logLevel: LogLevel;
  /** Defaults to package.json's version. */
  version?: string;
  /** Defaults to the dockerode host of edge-agent/src/docker. */
  dockerHostFor?: (endpoint: DockerEndpoint) => DockerHost;
  timers?: Timers;
  /** Reconnect backoff; defaults 1 s to 60 s, reset after a 60 s session. */
  reconnect?: Partial<BackoffOptions>;
  tuning?: Partial<SessionTuning>;
  /** Docker events of one container within this long become one delta (default 250 ms). */
  eventDebounceMs?: number;
  /** The update journal (UpdateJournalFile.open(file)); in memory when absent, so a restart forgets a running update. */
  updateJournal?: UpdateJournalFile;
  /** Health polling of the update engine (tests). */
  updateTiming?: Partial<HealthTiming>;
  /** dd.hook.pre / dd.hook.post of this host's containers (the agent's DD_HOOKS_*); none run when absent. */
  hooks?: AgentHookSettings;
  /**
   * How long stop() lets running updates go on, then signalled (AgentUpdates.stop); without it they
   * are signalled at once and waited for. The command line passes AGENT_SHUTDOWN_LIMITS.
   */
  shutdown?: ShutdownLimits;
  /** The agent's life as it happens: for tests and for whoever embeds the agent. */
  onEvent?: (event: EdgeAgentEvent) => void;
}

export type EdgeAgentEvent =
  | { type: 'welcome'; heartbeatMs: number; hubVersion: string }
  | { type: 'closed'; end: SessionEnd; reconnectInMs: number | undefined };

export interface EdgeAgent {
  readonly watchers: readonly WatcherRuntime[];
  readonly connected: boolean;
  /** Connects and keeps reconnecting until stop(). */
  start(): void;
  /**
   * Lets running updates settle (within `shutdown`) while the session is still open, closes it with
   * 1001 (going away), stops the Docker subscriptions and closes the Docker hosts.
   */
  stop(): Promise<void>;
}

/** After a hub's 1001, how long dials that find no hub are retried at the first backoff step. */
const HUB_RESTART_WINDOW_MS = 60_000;

/** What a restarting hub looks like from the agent: going away, then nobody listening (or a proxy's 502/503). */
function isRestartGap(end: SessionEnd): boolean {
  if (end.code === EDGE_CLOSE.goingAway) return true;
  if (end.httpStatus !== undefined) return end.httpStatus === 502 || end.httpStatus === 503;
  return end.code === 1006 && !end.welcomed;
}

/**
 * The edge agent: its Docker watchers, and one session with the hub at a time, re-dialled after
 * any close but its own shutdown with exponential backoff and jitter. Each session begins with a
 * full sync, so nothing missed while disconnected is lost.
 */
export function createEdgeAgent(options: EdgeAgentOptions): EdgeAgent {
  const url = edgeSocketUrl(options.url);
  const timers = options.timers ?? realTimers;
  const { logger } = options;
  const override = options.dockerHostFor;
  const hostFor = (config: WatcherConfig) => (override ? override(config.endpoint) : createEngineHost(config));
  const version = options.version ?? readAgentVersion();
  const tuning = { ...DEFAULT_SESSION_TUNING, ...options.tuning };
  const backoff = createBackoff({ ...DEFAULT_BACKOFF, ...options.reconnect });
  let current: HubLinkSession | undefined;
  let running: Promise<void> | undefined;
  let hubRestartUntil = 0;
  const stopping = new AbortController();

  const watchers: WatcherRuntime[] = options.watchers.map((config) => {
    const host = hostFor(config);
    const feed = new WatcherFeed({
      watcher: config.name,
      host,
      watchAll: config.watchAll,
      logger: logger.child(`edge.watcher.${config.name}`),
      timers,
      ...(options.eventDebounceMs !== undefined ? { debounceMs: options.eventDebounceMs } : {}),
      onDelta: (delta) => current?.sendDelta(delta),
      onGap: () => current?.resync([config.name]),
    });
    return { name: config.name, config, host, feed, description: describeWatcher(config) };
  });

  const link = logger.child('edge.link');
  const updates = new AgentUpdates({
    journal: options.updateJournal ?? UpdateJournalFile.inMemory(),
    logger: logger.child('edge.updates'),
    timing: options.updateTiming,
    hooks: options.hooks,
  });
  updates.onChange = (watcher, operation) => current?.sendOperation(watcher, operation);

  async function connectLoop(): Promise<void> {
    while (!stopping.signal.aborted) {
      const session = new HubLinkSession({
        url,
        key: options.key,
        agentName: options.agentName,
        agentInfo: () => collectAgentInfo(version, options.logLevel),
        watchers,
        updates,
        ring: options.ring,
        logger: link,
        timers,
        tuning,
        onWelcome: (welcome) => {
          link.info(
            `connected to ${url} as ${options.agentName} (key ${options.key.keyId}); heartbeat ${welcome.heartbeatMs} ms`,
          );
          options.onEvent?.({ type: 'welcome', heartbeatMs: welcome.heartbeatMs, hubVersion: welcome.hubVersion });
          // The hub may have missed phases (or the whole ending) while the link was down.
          for (const operation of updates.reportable()) session.sendOperation(operation.watcher, operation);
        },
      });
      current = session;
      const end = await session.ended;
      current = undefined;
      if (stopping.signal.aborted) {
        options.onEvent?.({ type: 'closed', end, reconnectInMs: undefined });
        return;
      }
      if (end.welcomed) backoff.sessionEnded(end.durationMs);
      // A hub going away is restarting, not refusing: until its successor listens (a restart window),
      // failed dials are retried at the first step rather than growing, so the agent is back within a second or so.
      if (end.code === EDGE_CLOSE.goingAway && !end.byAgent) hubRestartUntil = timers.now() + HUB_RESTART_WINDOW_MS;
      if (timers.now() < hubRestartUntil && isRestartGap(end)) backoff.reset();
      if (closeMeaning(end.code).retryAtMaxStep) backoff.jumpToMax();
      const delayMs = Math.max(backoff.next(), end.retryAfterMs ?? 0);
      reportClose(end, delayMs);
      options.onEvent?.({ type: 'closed', end, reconnectInMs: delayMs });
      await sleep(timers, delayMs, stopping.signal);
    }
  }

  function reportClose(end: SessionEnd, delayMs: number): void {
    const then = `reconnecting in ${delayMs} ms`;
    if (end.httpStatus !== undefined) {
      const hint = end.httpStatus === 404 ? ' (is the edge endpoint enabled on the hub? DD_EXPERIMENTAL_EDGE)' : '';
      link.warn(
        `the hub answered the upgrade with HTTP ${end.httpStatus}${end.message ? `: ${end.message}` : ''}${hint}; ${then}`,
      );
      return;
    }
    if (end.code === 1006 && !end.welcomed && !end.byAgent) {
      link.warn(`cannot reach the hub at ${url}: ${end.message ?? 'connection failed'}; ${then}`);
      return;
    }
    const meaning = closeMeaning(end.code);
    const detail = [end.reason, end.message].filter(Boolean).join('; ');
    link[meaning.level](
      `connection closed with ${end.code} (${meaning.meaning})${detail ? `: ${detail}` : ''}; ${then}`,
    );
    if (end.code === EDGE_CLOSE.signInFailed) {
      link.error(
        `register this agent's key on the hub: key id ${options.key.keyId}, POST /api/v1/edge/keys ` +
          JSON.stringify({ publicKey: toBase64(options.key.publicKey), label: options.agentName }),
      );
    }
  }

  return {
    watchers,
    get connected() {
      return current?.isReady ?? false;
    },
    start() {
      if (running) return;
      for (const watcher of watchers) {
        watcher.feed.start();
        watcher.host.ping().catch((error: unknown) => {
          logger.warn(
            `watcher ${watcher.name}: Docker at ${watcher.host.endpoint} does not answer yet: ${errorMessage(error)}`,
          );
        });
      }
      // What a stop of the agent cut short is settled before the hub hears about it.
      running = updates.recover(watchers).then(connectLoop);
    },
    async stop() {
      // Running updates settle while the session is still open, so the hub hears how they ended.
      await updates.stop('the agent is stopping', options.shutdown);
      stopping.abort();
      current?.close(EDGE_CLOSE.goingAway, 'agent shutting down');
      await running;
      for (const watcher of watchers) watcher.feed.stop();
      await Promise.all(watchers.map((watcher) => watcher.host.close()));
    },
  };
}
