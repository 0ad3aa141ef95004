import { errorMessage } from '../error-message';
import type { UpdateOperation } from '../update-engine/operation';
import { parseLabelDuration } from './label-duration';

/**
 * dd.hook.pre / dd.hook.post (docs/updates.md "Hooks"), the part the hub and the edge agents share: the
 * labels, the timeout, what a command learns, and how a result is described. Where the command
 * runs is the runtime's business (a HookRunner): the hub's host for its own containers, the
 * agent's host for an agent's.
 */

export const HOOK_PRE_LABEL = 'dd.hook.pre';
export const HOOK_POST_LABEL = 'dd.hook.post';
export const HOOK_TIMEOUT_LABEL = 'dd.hook.timeout';
export const MAX_HOOK_TIMEOUT_MS = 60 * 60_000;
/** The output's tail shown in an audit entry, a lastError, and an operation's `hooks` detail. */
export const HOOK_SHOWN_OUTPUT = 300;

export type HookStage = 'pre' | 'post';

/** Runs a hook's shell command; the portable core never starts processes itself. */
export interface HookRunner {
  run(command: string, options: HookRunOptions): Promise<HookResult>;
}

export interface HookRunOptions {
  /** The whole environment of the command (the runner adds PATH): no secret of the runtime reaches it. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Aborting ends the command (a cancelled update). */
  signal?: AbortSignal | undefined;
}

export interface HookResult {
  /** The exit code; null when a signal ended the command (a timeout or a cancel). */
  exitCode: number | null;
  timedOut: boolean;
  /** The last part of stdout and stderr together, for the audit entry and the operation's error. */
  output: string;
}

/** The commands of a container's labels (blank ones count as absent); undefined when it has neither. */
export function hookCommands(labels: Readonly<Record<string, string>>): { pre?: string; post?: string } | undefined {
  const pre = labels[HOOK_PRE_LABEL]?.trim() || undefined;
  const post = labels[HOOK_POST_LABEL]?.trim() || undefined;
  if (pre === undefined && post === undefined) return undefined;
  return { ...(pre !== undefined && { pre }), ...(post !== undefined && { post }) };
}

/**
 * `dd.hook.timeout` (`30`, `90s`, `5m`; a bare number is seconds), else the configured default; at
 * most an hour. A malformed label falls back to the default: labels never fail an update.
 */
export function hookTimeoutMs(labels: Readonly<Record<string, string>>, defaultMs: number): number {
  const raw = labels[HOOK_TIMEOUT_LABEL];
  const labelled = raw === undefined ? undefined : parseLabelDuration(raw);
  return Math.min(MAX_HOOK_TIMEOUT_MS, labelled && labelled > 0 ? labelled : defaultMs);
}

/** What the command learns about the update: names and versions, nothing secret. */
export function hookEnvironment(stage: HookStage, operation: UpdateOperation): Record<string, string> {
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

/** `exited with code 3: <output tail>`, `timed out after 60 s`, `was stopped`. */
export function describeHookResult(result: HookResult, timeoutMs: number): string {
  const why = result.timedOut
    ? `timed out after ${timeoutMs / 1000} s`
    : result.exitCode === null
      ? 'was stopped'
      : `exited with code ${result.exitCode}`;
  const output = result.output.trim().slice(-HOOK_SHOWN_OUTPUT);
  return output === '' ? why : `${why}: ${output}`;
}

/** Runs one hook; answers the failure's description (non-zero exit, timeout, stop, no start), or undefined on success. */
export async function runHook(
  runner: HookRunner,
  stage: HookStage,
  command: string,
  operation: UpdateOperation,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<string | undefined> {
  try {
    const result = await runner.run(command, {
      env: hookEnvironment(stage, operation),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    return result.exitCode !== 0 || result.timedOut ? describeHookResult(result, options.timeoutMs) : undefined;
  } catch (error) {
    return `could not start: ${errorMessage(error)}`;
  }
}

/** The operation's lastError when its pre hook refused the update. */
export function preHookRefusal(failure: string): string {
  return `the pre-update hook (${HOOK_PRE_LABEL}) ${failure}; nothing was changed`;
}

/**
 * An operation's record of a hook (its `hooks` field): the status, and a failure's description cut
 * to HOOK_SHOWN_OUTPUT characters, keeping why (`exited with code 7: `) and the output's last part.
 */
export function hookOutcome(failure: string | undefined): { status: 'success' | 'failed'; detail?: string } {
  if (failure === undefined) return { status: 'success' };
  if (failure.length <= HOOK_SHOWN_OUTPUT) return { status: 'failed', detail: failure };
  const colon = failure.indexOf(': ');
  const head = colon >= 0 && colon < HOOK_SHOWN_OUTPUT / 2 ? failure.slice(0, colon + 2) : '';
  return { status: 'failed', detail: `${head}…${failure.slice(-(HOOK_SHOWN_OUTPUT - head.length - 1))}` };
}
