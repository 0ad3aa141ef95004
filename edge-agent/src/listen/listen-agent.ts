import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { AGENT_KEEPALIVE_MS, type AgentAck } from '../../../shared/agent-api/listen-schemas';
import type { DockerHost } from '../../../shared/docker/docker-host';
import type { DockerEndpoint, WatcherConfig } from '../../../shared/docker/watcher-config';
import type { LogRing } from '../../../shared/logging/log-ring';
import type { Logger } from '../../../shared/logging/logger';
import type { LogLevel } from '../../../shared/schemas/log-entry';
import type { HealthTiming, ShutdownLimits } from '../../../shared/update-engine';
import { collectAgentInfo, readAgentVersion } from '../agent/agent-info';
import { createEngineHost } from '../docker';
import type { AgentHookSettings } from '../hooks/agent-update-hooks';
import { realTimers, type Timers } from '../link/timers';
import { AgentUpdates } from '../updates/agent-updates';
import { UpdateJournalFile } from '../updates/update-journal-file';
import { createListenApp } from './listen-app';
import { ListenState } from './listen-state';
import { ListenWatcher } from './listen-watcher';

export interface ListenAgentOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** The address to bind: 127.0.0.1 unless widened (--listen-host, DD_AGENT_LISTEN_HOST). */
  host: string;
  secret: string;
  watchers: readonly WatcherConfig[];
  logger: Logger;
  ring: LogRing;
  logLevel: LogLevel;
  featureDelete: boolean;
  featureContainerActions: boolean;
  /** Defaults to package.json's version. */
  version?: string;
  dockerHostFor?: (endpoint: DockerEndpoint) => DockerHost;
  timers?: Timers;
  eventDebounceMs?: number;
  keepaliveMs?: number;
  /** The update journal (UpdateJournalFile.open(file)); in memory when absent: a restart forgets a running update. */
  updateJournal?: UpdateJournalFile;
  /** Health polling of the update engine (tests). */
  updateTiming?: Partial<HealthTiming>;
  /** dd.hook.pre / dd.hook.post of this host's containers (the agent's DD_HOOKS_*); none run when absent. */
  hooks?: AgentHookSettings;
  /** How long stop() lets running updates go on, then signalled (AgentUpdates.stop); without it, signalled at once. */
  shutdown?: ShutdownLimits;
}

export interface ListenAgent {
  readonly watchers: readonly ListenWatcher[];
  readonly state: ListenState;
  /** `http://host:port` once started. */
  readonly url: string;
  readonly port: number;
  /**
   * Settles the updates a stop of the agent cut short (from its journal), opens the listener, then
   * starts the watchers (their first observation runs at once).
   */
  start(): Promise<void>;
  /**
   * Lets running updates settle (within `shutdown`) while the event streams are still open, then
   * ends the streams, closes the listener, stops the watchers and closes the Docker hosts.
   */
  stop(): Promise<void>;
}

/** http-interface §2.3: `version` without any prerelease suffix, `build` the full identity. */
function versionParts(full: string): { version: string; build: string } {
  return { version: full.replace(/[-+].*$/, '') || full, build: full };
}

/** The agent in listen mode: the hub connects to it (http-interface §4.5) instead of the agent dialling the hub. */
export function createListenAgent(options: ListenAgentOptions): ListenAgent {
  const timers = options.timers ?? realTimers;
  const override = options.dockerHostFor;
  const hostFor = (config: WatcherConfig) => (override ? override(config.endpoint) : createEngineHost(config));
  const version = options.version ?? readAgentVersion();
  const state = new ListenState(options.watchers.map((config) => config.name));
  const watchers = options.watchers.map(
    (config) =>
      new ListenWatcher({
        config,
        host: hostFor(config),
        state,
        logger: options.logger.child(`listen.watcher.${config.name}`),
        timers,
        ...(options.eventDebounceMs !== undefined && { eventDebounceMs: options.eventDebounceMs }),
      }),
  );

  // The edge agent's update engine and journal; each journal write goes out as a dd:operation event.
  const updates = new AgentUpdates({
    journal: options.updateJournal ?? UpdateJournalFile.inMemory(),
    logger: options.logger.child('listen.updates'),
    timing: options.updateTiming,
    hooks: options.hooks,
  });
  updates.onChange = (_watcher, operation) => state.operationChanged(operation);

  const ack = (): AgentAck => {
    const info = collectAgentInfo(version, options.logLevel);
    const containers = state.all();
    const running = containers.filter((container) => container.status === 'running').length;
    return {
      ...versionParts(version),
      os: info.os,
      arch: info.arch,
      cpus: info.cpus,
      memoryGb: info.memoryGb,
      uptimeSeconds: info.uptimeSeconds,
      lastSeen: new Date().toISOString(),
      logLevel: options.logLevel,
      pollInterval: options.watchers[0]?.cron ?? '',
      containers: { total: containers.length, running, stopped: containers.length - running },
      images: new Set(containers.map((container) => container.image.id)).size,
    };
  };

  const { app, closeStreams } = createListenApp({
    secret: options.secret,
    watchers,
    state,
    ring: options.ring,
    logger: options.logger.child('listen.http'),
    featureDelete: options.featureDelete,
    featureContainerActions: options.featureContainerActions,
    updates,
    ack,
    keepaliveMs: options.keepaliveMs ?? AGENT_KEEPALIVE_MS,
  });

  let server: Server | undefined;
  let port = 0;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    watchers,
    state,
    get url() {
      return `http://${hostForUrl}:${port}`;
    },
    get port() {
      return port;
    },
    async start() {
      if (server) return;
      // What a stop of the agent cut short is settled before the hub can ask about it.
      await updates.recover(watchers);
      server = await new Promise<Server>((resolve, reject) => {
        const listening = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () =>
          resolve(listening as Server),
        );
        listening.once('error', reject);
      });
      port = (server.address() as AddressInfo).port;
      for (const watcher of watchers) watcher.start();
    },
    async stop() {
      // Running updates settle while the streams are open, so the hub hears how they ended.
      await updates.stop('the agent is stopping', options.shutdown);
      await closeStreams();
      const closing = server
        ? new Promise<void>((resolve) => {
            server?.close(() => resolve());
            server?.closeAllConnections();
          })
        : Promise.resolve();
      await Promise.all(watchers.map((watcher) => watcher.stop()));
      await Promise.all(watchers.map((watcher) => watcher.host.close()));
      await closing;
    },
  };
}
