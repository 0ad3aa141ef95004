import type { DockerHost } from '../../../shared/docker/docker-host';
import type { Logger } from '../../../shared/logging/logger';
import type { HookConfig } from '../../../shared/update/hook-config';
import {
  type HookRunner,
  type HookStage,
  hookCommands,
  hookOutcome,
  hookTimeoutMs,
  runHook,
} from '../../../shared/update/hooks';
import type { HookOutcome, UpdateOperation } from '../../../shared/update-engine/operation';

/** The agent's DD_HOOKS_ENABLED / DD_HOOKS_TIMEOUT, and what runs the commands (createNodeHookRunner). */
export interface AgentHookSettings extends HookConfig {
  runner: HookRunner;
}

/** What one hook did: the operation's record of it, and a failure's full description. */
export interface HookRun {
  outcome: HookOutcome;
  failure: string | undefined;
}

/** The hooks of one update on this agent's host; each answers undefined when it has nothing to run. */
export interface AgentUpdateHooks {
  /** True when dd.hook.pre runs before the engine. */
  readonly pre: boolean;
  /** True when a success is followed by dd.hook.post (the agent reports the success with its outcome). */
  readonly post: boolean;
  runPre(operation: UpdateOperation, signal: AbortSignal): Promise<HookRun | undefined>;
  runPost(settled: UpdateOperation): Promise<HookRun | undefined>;
}

const NO_HOOKS: AgentUpdateHooks = {
  pre: false,
  post: false,
  runPre: async () => undefined,
  runPost: async () => undefined,
};

/**
 * The hooks of an update of a container on this agent's host (docs/updates.md "Hooks", "On edge
 * agents"): the labels of the container it replaces, read from this host's Docker now (the post
 * hook still knows them once it is gone). Only updates run hooks, and only when this agent's own
 * DD_HOOKS_ENABLED is true: a label becomes a command on this host, so its owner decides, never
 * the hub. Labels without that consent get a warning and run nothing.
 */
export async function agentUpdateHooks(
  settings: AgentHookSettings | undefined,
  host: DockerHost,
  operation: UpdateOperation,
  logger: Logger,
): Promise<AgentUpdateHooks> {
  if (operation.kind !== 'update') return NO_HOOKS;
  // A container that is gone has no hooks; the engine then fails the update in prepare.
  const labels = (await host.inspectContainer(operation.containerId))?.labels ?? {};
  const commands = hookCommands(labels);
  if (commands === undefined) return NO_HOOKS;
  if (!settings?.enabled) {
    logger.warn(
      `${operation.containerName} has dd.hook.* labels but this agent's DD_HOOKS_ENABLED is not true: no hook runs`,
    );
    return NO_HOOKS;
  }
  const timeoutMs = hookTimeoutMs(labels, settings.timeoutMs);
  const run = async (stage: HookStage, command: string | undefined, current: UpdateOperation, signal?: AbortSignal) => {
    if (command === undefined) return undefined;
    const failure = await runHook(settings.runner, stage, command, current, { timeoutMs, signal });
    if (failure === undefined)
      logger.info(`the ${stage}-update hook of ${current.containerName} succeeded (operation ${current.id})`);
    else
      logger.warn(`the ${stage}-update hook of ${current.containerName} failed (operation ${current.id}): ${failure}`);
    return { outcome: hookOutcome(failure), failure };
  };
  return {
    pre: commands.pre !== undefined,
    post: commands.post !== undefined,
    runPre: (current, signal) => run('pre', commands.pre, current, signal),
    runPost: (settled) =>
      settled.status === 'succeeded' ? run('post', commands.post, settled) : Promise.resolve(undefined),
  };
}
