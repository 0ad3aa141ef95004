import type { AuditAction } from '../../../shared/schemas/audit-entry';
import { errorText, type UpdateOperation } from '../../../shared/update-engine';
import type { HubServices } from '../hub-services';
import type { Logger } from '../logging/logger';
import type { HookResult } from './hook-runner';
import { parseDuration } from './rollback-labels';

export const HOOK_PRE_LABEL = 'dd.hook.pre';
export const HOOK_POST_LABEL = 'dd.hook.post';
export const HOOK_TIMEOUT_LABEL = 'dd.hook.timeout';
const MAX_HOOK_TIMEOUT_MS = 60 * 60_000;
const SHOWN_OUTPUT = 300;

type Stage = 'pre' | 'post';

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

function describe(result: HookResult, timeoutMs: number): string {
  const why = result.timedOut
    ? `timed out after ${timeoutMs / 1000} s`
    : result.exitCode === null
      ? 'was stopped'
      : `exited with code ${result.exitCode}`;
  const output = result.output.trim().slice(-SHOWN_OUTPUT);
  return output === '' ? why : `${why}: ${output}`;
}

/** What the command learns about the update: names and versions, nothing secret. */
function hookEnvironment(stage: Stage, operation: UpdateOperation): Record<string, string> {
  return {
    DD_HOOK: stage,
    DD_OPERATION_ID: operation.id,
    DD_CONTAINER_NAME: operation.containerName,
    DD_CONTAINER_ID: operation.containerId,
    DD_WATCHER: operation.watcher,
    DD_TARGET_IMAGE: operation.targetImage,
    DD_FROM_VERSION: operation.fromVersion ?? '',
    DD_TO_VERSION: operation.toVersion ?? '',
    DD_TRIGGER: operation.triggerName ?? '',
    ...(operation.newContainerId !== undefined && { DD_NEW_CONTAINER_ID: operation.newContainerId }),
  };
}

/**
 * The hooks of an update (issue 7 part 7), only with DD_HOOKS_ENABLED=true and only for updates
 * (rollbacks run none). Labels are read now, from the old container: the post hook still knows
 * them after its record is gone.
 */
export function updateHooksFor(services: HubServices, logger: Logger, operation: UpdateOperation): UpdateHooks {
  if (operation.kind !== 'update') return NO_HOOKS;
  const labels = services.containers.get(operation.containerId)?.labels ?? {};
  const commands = { pre: labels[HOOK_PRE_LABEL]?.trim() || undefined, post: labels[HOOK_POST_LABEL]?.trim() || undefined };
  if (commands.pre === undefined && commands.post === undefined) return NO_HOOKS;
  const config = services.config.hooks;
  if (!config.enabled) {
    logger.warn('the container has dd.hook.* labels but DD_HOOKS_ENABLED is not true: no hook runs', {
      container: operation.containerName,
    });
    return NO_HOOKS;
  }
  const labelled = labels[HOOK_TIMEOUT_LABEL] === undefined ? undefined : parseDuration(labels[HOOK_TIMEOUT_LABEL]);
  const timeoutMs = Math.min(MAX_HOOK_TIMEOUT_MS, labelled && labelled > 0 ? labelled : config.timeoutMs);

  /** Runs one hook and audits it; answers the failure's description, or undefined on success. */
  async function run(stage: Stage, command: string, current: UpdateOperation, signal?: AbortSignal): Promise<string | undefined> {
    const runner = services.deps.hookRunner;
    let failure: string | undefined;
    if (!runner) failure = `cannot run: this runtime (${services.deps.runtime}) runs no commands`;
    else {
      try {
        const result = await runner.run(command, { env: hookEnvironment(stage, current), timeoutMs, signal });
        if (result.exitCode !== 0 || result.timedOut) failure = describe(result, timeoutMs);
      } catch (error) {
        failure = `could not start: ${errorText(error)}`;
      }
    }
    const action: AuditAction = `hook-${stage}-${failure === undefined ? 'success' : 'failed'}`;
    await services.audit.append({
      action,
      containerName: current.containerName,
      containerImage: current.targetImage,
      ...(current.fromVersion !== undefined && { fromVersion: current.fromVersion }),
      ...(current.toVersion !== undefined && { toVersion: current.toVersion }),
      ...(current.triggerName !== undefined && { triggerName: current.triggerName }),
      status: failure === undefined ? 'success' : 'failed',
      details: `operation ${current.id}${failure === undefined ? '' : `: ${failure}`}`.slice(0, 500),
    });
    if (failure !== undefined) logger.warn(`the ${stage}-update hook failed`, { container: current.containerName, failure });
    return failure;
  }

  return {
    async pre(journal, signal) {
      if (commands.pre === undefined) return undefined;
      // The operation shows as started while its hook runs; a crash here recovers as failed in prepare.
      await journal.save({ ...operation, status: 'in-progress', phase: 'prepare', updatedAt: new Date(services.now()).toISOString() });
      const failure = await run('pre', commands.pre, operation, signal);
      return failure === undefined ? undefined : `the pre-update hook (dd.hook.pre) ${failure}; nothing was changed`;
    },
    async post(settled) {
      if (commands.post === undefined || settled.status !== 'succeeded') return;
      await run('post', commands.post, settled);
    },
  };
}
