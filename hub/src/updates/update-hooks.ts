import type { Logger } from '../../../shared/logging/logger';
import type { AuditAction } from '../../../shared/schemas/audit-entry';
import {
  type HookRunner,
  type HookStage,
  hookCommands,
  hookTimeoutMs,
  preHookRefusal,
  runHook,
} from '../../../shared/update/hooks';
import type { UpdateOperation } from '../../../shared/update-engine';
import type { HubConfig } from '../config/hub-config';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';

/** An update's dd.hook.* commands: the labels they come from, DD_HOOKS_*, the runner, and the audit trail. */
export interface UpdateHooksDeps {
  containers: Pick<ContainerStore, 'get'>;
  config: Pick<HubConfig, 'hooks'>;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  /** Runs the commands on the hub's host; undefined where the runtime runs none (hooks are refused). */
  hookRunner: HookRunner | undefined;
  /** The runtime's name, for the refusal where it runs no commands. */
  runtime: string;
}

/** The hooks of one update, read from the labels of the container it replaces. */
export interface UpdateHooks {
  /**
   * Runs `dd.hook.pre` before anything is touched; answers the operation's lastError when the
   * update must not go on (the hook failed, timed out, or cannot run here), else undefined.
   */
  pre(journal: { save(operation: UpdateOperation): Promise<void> }, signal: AbortSignal): Promise<string | undefined>;
  /** Runs `dd.hook.post` after a success; a failure is audited and logged, never rolled back. */
  post(settled: UpdateOperation): Promise<void>;
}

const NO_HOOKS: UpdateHooks = { pre: async () => undefined, post: async () => undefined };

// Spelled out rather than built from the stage's name, so test/architecture/audit-producers finds each producer.
const HOOK_AUDIT_ACTION = {
  pre: { success: 'hook-pre-success', failed: 'hook-pre-failed' },
  post: { success: 'hook-post-success', failed: 'hook-post-failed' },
} as const satisfies Record<HookStage, Record<'success' | 'failed', AuditAction>>;

/** Audits one hook's outcome (hook-pre-success, hook-post-failed, ...), as for a local or an agent's update. */
export async function auditHook(
  deps: Pick<UpdateHooksDeps, 'audit'>,
  stage: HookStage,
  operation: UpdateOperation,
  failure: string | undefined,
): Promise<void> {
  await deps.audit.append({
    action: HOOK_AUDIT_ACTION[stage][failure === undefined ? 'success' : 'failed'],
    containerName: operation.containerName,
    containerImage: operation.targetImage,
    ...(operation.fromVersion !== undefined && { fromVersion: operation.fromVersion }),
    ...(operation.toVersion !== undefined && { toVersion: operation.toVersion }),
    ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
    status: failure === undefined ? 'success' : 'failed',
    details: `operation ${operation.id}${failure === undefined ? '' : `: ${failure}`}`.slice(0, 500),
  });
}

/**
 * The hooks of an update (docs/updates.md "Hooks"), only with DD_HOOKS_ENABLED=true and only for updates
 * (rollbacks run none). Labels are read now, from the old container: the post hook still knows
 * them after its record is gone. An edge agent's container gets none here: its agent runs its
 * hooks on its own host, under its own DD_HOOKS_ENABLED (agent-update-runner.ts audits them).
 */
export function updateHooksFor(deps: UpdateHooksDeps, logger: Logger, operation: UpdateOperation): UpdateHooks {
  if (operation.kind !== 'update' || operation.agent !== undefined) return NO_HOOKS;
  const labels = deps.containers.get(operation.containerId)?.labels ?? {};
  const commands = hookCommands(labels);
  if (commands === undefined) return NO_HOOKS;
  const config = deps.config.hooks;
  if (!config.enabled) {
    logger.warn('the container has dd.hook.* labels but DD_HOOKS_ENABLED is not true: no hook runs', {
      container: operation.containerName,
    });
    return NO_HOOKS;
  }
  const timeoutMs = hookTimeoutMs(labels, config.timeoutMs);

  /** Runs one hook and audits it; answers the failure's description, or undefined on success. */
  async function run(
    stage: HookStage,
    command: string,
    current: UpdateOperation,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const runner = deps.hookRunner;
    const failure = runner
      ? await runHook(runner, stage, command, current, { timeoutMs, signal })
      : `cannot run: this runtime (${deps.runtime}) runs no commands`;
    await auditHook(deps, stage, current, failure);
    if (failure !== undefined)
      logger.warn(`the ${stage}-update hook failed`, { container: current.containerName, failure });
    return failure;
  }

  return {
    async pre(journal, signal) {
      // Before any hook runs: which hooks this update carries, so the trail shows them even when the
      // hub stops before either has an outcome. The commands themselves stay out (they may hold secrets).
      const configured = (['pre', 'post'] as const).filter((stage) => commands[stage] !== undefined);
      await deps.audit.append({
        action: 'hook-configured',
        containerName: operation.containerName,
        containerImage: operation.targetImage,
        ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
        status: 'configured',
        details: `operation ${operation.id}: ${configured.map((stage) => `dd.hook.${stage}`).join(', ')}; timeout ${timeoutMs} ms`,
      });
      if (commands.pre === undefined) return undefined;
      // The operation shows as started while its hook runs; a crash here recovers as failed in prepare.
      await journal.save({
        ...operation,
        status: 'in-progress',
        phase: 'prepare',
        updatedAt: new Date(deps.now()).toISOString(),
      });
      const failure = await run('pre', commands.pre, operation, signal);
      return failure === undefined ? undefined : preHookRefusal(failure);
    },
    async post(settled) {
      if (commands.post === undefined || settled.status !== 'succeeded') return;
      await run('post', commands.post, settled);
    },
  };
}
