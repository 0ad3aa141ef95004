import { readFileSync } from 'node:fs';
import { ConfigError } from '../../../shared/config/config-error';
import { createNodeHookRunner } from '../hooks/hook-runner';
import { createListenAgent, type ListenAgent, type ListenAgentOptions } from '../listen/listen-agent';
import { createAgentLogging } from '../logging/agent-logging';
import { UpdateJournalFile } from '../updates/update-journal-file';
import { loadAgentEnvironment } from './agent-environment';
import type { AgentCommand } from './parse-args';
import { AGENT_SHUTDOWN_LIMITS, type StartOptions } from './run-agent';

/** Below this many characters a secret draws a warning: it is all that guards the host's Docker. */
const SHORT_SECRET = 16;

export interface StartListenOptions extends Omit<StartOptions, 'overrides' | 'hostname'> {
  /** Anything else of the listen agent's options (timers, keepalive): for tests. */
  overrides?: Partial<ListenAgentOptions>;
}

/**
 * `npm run agent -- --listen PORT ...`: variables, the secret (exactly one source), logging, then
 * the agent listening. Throws ConfigError naming the flag or variable (the entry exits 78).
 */
export async function startListenAgent(
  command: Extract<AgentCommand, { command: 'listen' }>,
  options: StartListenOptions,
): Promise<ListenAgent> {
  const environment = loadAgentEnvironment(options.env, (path) => readFileSync(path, 'utf8'));
  const fromEnv = environment.listen.secret;
  if (command.secret !== undefined && fromEnv !== undefined) {
    throw new ConfigError('--secret', `give the secret once: --secret or ${fromEnv.variable}, not both`);
  }
  const secret = command.secret ?? fromEnv?.value;
  if (secret === undefined) {
    throw new ConfigError(
      'DD_AGENT_SECRET',
      'listen mode needs the secret the hub sends: set DD_AGENT_SECRET or DD_AGENT_SECRET_FILE (or --secret)',
    );
  }
  const host = command.host ?? environment.listen.host ?? '127.0.0.1';
  const { logger, ring } = createAgentLogging(environment.logLevel, options.sink);
  if (environment.unknown.length > 0) logger.warn(`unknown variables ignored: ${environment.unknown.join(', ')}`);
  if (environment.watchers.length === 0)
    logger.warn('no Docker watcher is configured (DD_LOCAL_WATCHER=false and no DD_WATCHER_*)');
  if (command.secret !== undefined)
    logger.warn('--secret is visible to every user of this host (ps); prefer DD_AGENT_SECRET_FILE');
  if (secret.length < SHORT_SECRET)
    logger.warn(`the agent secret is shorter than ${SHORT_SECRET} characters; use a long random one`);
  const journalFile = environment.listen.updateJournal;
  if (journalFile === undefined)
    logger.info('DD_AGENT_UPDATE_JOURNAL is not set: an update cut short by a restart of this agent is not recovered');
  if (environment.hooks.enabled)
    logger.info(
      `DD_HOOKS_ENABLED=true: the dd.hook.pre / dd.hook.post labels of this host's containers run as commands on this host`,
    );
  const agent = createListenAgent({
    port: command.port,
    host,
    secret,
    watchers: environment.watchers,
    logger,
    ring,
    logLevel: environment.logLevel,
    featureDelete: environment.listen.featureDelete,
    featureContainerActions: environment.listen.featureContainerActions,
    updateJournal: await UpdateJournalFile.open(journalFile),
    // Only this host's own DD_HOOKS_ENABLED turns hooks on (docs/updates.md "Hooks", "On edge agents").
    hooks: { ...environment.hooks, runner: createNodeHookRunner() },
    shutdown: AGENT_SHUTDOWN_LIMITS,
    ...options.overrides,
  });
  await agent.start();
  logger.info(
    `listen-mode agent listening on ${agent.url}; watchers ${environment.watchers.map((w) => w.name).join(', ') || 'none'}`,
    {
      port: agent.port,
      host,
    },
  );
  return agent;
}
