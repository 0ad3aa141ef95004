import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { LogSink } from '../../../shared/logging/logger';
import { createEdgeAgent, type EdgeAgent, type EdgeAgentOptions } from '../agent/edge-agent';
import { createNodeHookRunner } from '../hooks/hook-runner';
import { readKeyFile } from '../keys/key-file';
import { createAgentLogging } from '../logging/agent-logging';
import { UpdateJournalFile } from '../updates/update-journal-file';
import { loadAgentEnvironment } from './agent-environment';
import { writeLinkStatus } from './link-status-file';
import { type AgentCommand, resolveAgentName } from './parse-args';

/**
 * SIGTERM inside the entry's 10 s (edge-agent/src/main.ts): a running update goes on for 4 s, then is
 * signalled to roll back and gets 2 s more; what still runs is journalled for the next start.
 */
export const AGENT_SHUTDOWN_LIMITS = { graceMs: 4_000, signalledMs: 2_000 } as const;

export interface StartOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Defaults to pino JSON lines on stdout. */
  sink?: LogSink;
  hostname?: string;
  /** Anything else of the agent's options (timers, tuning, onEvent): for tests. */
  overrides?: Partial<EdgeAgentOptions>;
}

/**
 * Everything `npm run agent -- --hub ...` does before the signals: variables, name, logging, key,
 * then the agent, started. Throws ConfigError (a flag or variable) or KeyFileError; the entry
 * turns both into exit code 78.
 */
export async function startAgent(
  command: Extract<AgentCommand, { command: 'run' }>,
  options: StartOptions,
): Promise<EdgeAgent> {
  const environment = loadAgentEnvironment(options.env, (path) => readFileSync(path, 'utf8'));
  const agentName = resolveAgentName(command.name, options.hostname ?? os.hostname());
  const key = await readKeyFile(command.keyFile);
  const { logger, ring } = createAgentLogging(environment.logLevel, options.sink);
  if (key.readableByOthers) logger.warn(`the key file ${command.keyFile} is readable by other users: chmod 600 it`);
  if (environment.unknown.length > 0) logger.warn(`unknown variables ignored: ${environment.unknown.join(', ')}`);
  if (environment.watchers.length === 0)
    logger.warn('no Docker watcher is configured (DD_LOCAL_WATCHER=false and no DD_WATCHER_*)');
  if (environment.hooks.enabled)
    logger.info(
      `DD_HOOKS_ENABLED=true: the dd.hook.pre / dd.hook.post labels of this host's containers run as commands on this host`,
    );
  logger.info(
    `edge agent ${agentName} starting: hub ${command.url}, key id ${key.keyId}, watchers ${environment.watchers.map((w) => w.name).join(', ') || 'none'}`,
  );
  // What --healthcheck reads (link-status-file.ts), written in order; a previous run's "connected"
  // must not outlive it.
  let linkWrites = Promise.resolve();
  const reportLink = (state: 'connected' | 'disconnected') => {
    const since = Date.now();
    linkWrites = linkWrites.then(() =>
      writeLinkStatus(command.keyFile, { state, since }).catch((error: Error) =>
        logger.warn(`cannot write the link status file: ${error.message}`),
      ),
    );
    return linkWrites;
  };
  await reportLink('disconnected');
  const agent = createEdgeAgent({
    url: command.url,
    key,
    agentName,
    watchers: environment.watchers,
    logger,
    ring,
    logLevel: environment.logLevel,
    reconnect: environment.reconnect,
    // Beside the key: an update the agent was running when it stopped is recovered at its next start.
    updateJournal: await UpdateJournalFile.open(`${command.keyFile}.updates.json`),
    // Only this host's own DD_HOOKS_ENABLED turns hooks on (docs/updates.md "Hooks", "On edge agents").
    hooks: { ...environment.hooks, runner: createNodeHookRunner() },
    shutdown: AGENT_SHUTDOWN_LIMITS,
    ...options.overrides,
    onEvent: (event) => {
      if (event.type === 'welcome') void reportLink('connected');
      if (event.type === 'closed') void reportLink('disconnected');
      options.overrides?.onEvent?.(event);
    },
  });
  agent.start();
  return agent;
}
