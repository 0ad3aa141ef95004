/**
 * The safe update sequence (http-interface §2.6, docs/updates.md), on any host that can update containers:
 *
 *   prepare (pull first; nothing touched) → renamed (old → `<name>-old-<ts>`) → new-created (the old
 *   one's configuration, new image) → old-stopped → new-started → health-gate (only with a
 *   healthcheck) → health-gate-passed → succeeded (old removed).
 *
 * Any failure after the rename, and a cancel seen at a phase boundary, rolls back: rollback-started
 * → rolled-back (new removed, old renamed back and started) with `rollbackReason`; a restore that
 * fails ends `failed` (phase rollback-failed) with `lastError`, the old container kept. A failure in
 * prepare changed nothing: it ends `failed` in phase prepare. Every change is journalled before the
 * next Docker call, so recoverOperation() can settle an operation that a crash cut short.
 */
import { type ComposeFileEditor, updateComposeFile } from '../compose';
import type { ContainerSpec, RegistryPullAuth, UpdatableDockerHost } from '../docker/docker-host';
import { splitReference } from '../docker/image-names';
import { errorMessage } from '../error-message';
import { checkStarted, DEFAULT_HEALTH_TIMING, type HealthTiming, waitHealthy } from './container-health';
import { temporaryName, type UpdateOperation } from './operation';
import { OperationRecorder, type RecorderDeps } from './operation-recorder';
import { restoreOnceReachable } from './restore';
import { cancelReason, UpdateCancelledError, UpdateStepError } from './update-step-error';

export interface UpdateEngineDeps extends RecorderDeps {
  host: UpdatableDockerHost;
  timing?: Partial<HealthTiming> | undefined;
  /** Brings a compose service's file to the new image after a success; compose files are left alone without it. */
  composeFiles?: ComposeFileEditor | undefined;
}

export interface UpdatePlan {
  /** Credentials for the target's registry, where the hub holds some. */
  auth?: RegistryPullAuth | undefined;
  /** The health gate's limit (the trigger's HEALTHTIMEOUT). */
  healthTimeoutMs: number;
  /** The configuration to create with (a rollback uses its backup's); the old container's when absent. */
  spec?: ContainerSpec | undefined;
  /** How long the pull may take before the update fails in prepare; PULL_LIMIT_MS when absent. */
  pullLimitMs?: number | undefined;
}

/**
 * The longest a pull may run: an hour, room for gigabytes over a slow line, but a pull trickling
 * through a stalled proxy does not hold the operation (and the container's update slot) for ever.
 */
export const PULL_LIMIT_MS = 3_600_000;

interface Prepared {
  tempName: string;
  oldWasRunning: boolean;
  oldImage: string;
  oldImageId: string;
  spec: ContainerSpec;
}

const RUNNING_STATES = new Set(['running', 'restarting', 'paused']);

function boundary(signal: AbortSignal): void {
  if (signal.aborted) throw new UpdateCancelledError(cancelReason(signal));
}

/**
 * The target image on the host: re-tagged from a kept local image, pulled by digest and tagged, or
 * pulled. A pull stops when the operation is cancelled, or at the plan's limit.
 */
async function obtainImage(
  operation: UpdateOperation,
  plan: UpdatePlan,
  host: UpdatableDockerHost,
  signal: AbortSignal,
): Promise<string> {
  if (operation.targetImageId) {
    const kept = await host.inspectImage(operation.targetImageId);
    if (kept) {
      await host.tagImage(kept.id, operation.targetImage);
      return kept.id;
    }
  }
  const limitMs = plan.pullLimitMs ?? PULL_LIMIT_MS;
  const stop = new AbortController();
  const cancelled = () => stop.abort(signal.reason);
  signal.addEventListener('abort', cancelled, { once: true });
  const timer = setTimeout(() => stop.abort('pull limit'), limitMs);
  try {
    if (operation.targetDigest) {
      const reference = `${splitReference(operation.targetImage).repository}@${operation.targetDigest}`;
      const pinned = await host.pullImage(reference, plan.auth, stop.signal);
      await host.tagImage(pinned.id, operation.targetImage);
      return pinned.id;
    }
    return (await host.pullImage(operation.targetImage, plan.auth, stop.signal)).id;
  } catch (error) {
    if (stop.signal.aborted && !signal.aborted)
      throw new UpdateStepError(
        `the pull of ${operation.targetImage} did not finish in ${Math.round(limitMs / 1000)} s`,
      );
    throw error;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cancelled);
  }
}

async function prepare(
  operation: UpdateOperation,
  plan: UpdatePlan,
  deps: UpdateEngineDeps,
  signal: AbortSignal,
): Promise<Prepared> {
  const { host } = deps;
  const old = await host.inspectContainer(operation.containerId);
  if (!old) throw new UpdateStepError('the container no longer exists');
  if (old.name !== operation.containerName)
    throw new UpdateStepError(`the container was renamed to ${old.name} meanwhile`);
  const captured = plan.spec ?? (await host.inspectContainerSpec(old.id));
  if (!captured) throw new UpdateStepError('the container no longer exists');
  if (captured.otherHostConfig['AutoRemove'] === true) {
    throw new UpdateStepError(
      'the container was started with --rm: Docker would delete it once stopped, so it could not be restored',
    );
  }
  boundary(signal);
  const imageId = await obtainImage(operation, plan, host, signal);
  if (imageId === old.imageId) throw new UpdateStepError(`the container already runs ${operation.targetImage}`);
  boundary(signal);
  return {
    tempName: temporaryName(operation.containerName, deps.now()),
    oldWasRunning: RUNNING_STATES.has(old.state),
    oldImage: old.image,
    oldImageId: old.imageId,
    spec: { ...captured, name: operation.containerName },
  };
}

/** Restores the old container; `reason` becomes rollbackReason, or part of lastError when the restore fails. */
export async function rollBack(
  run: OperationRecorder,
  host: UpdatableDockerHost,
  reason: string,
): Promise<UpdateOperation> {
  await run.save({ phase: 'rollback-started', rollbackReason: reason });
  try {
    await restoreOnceReachable(run.op, host);
    return await run.save({ status: 'rolled-back', phase: 'rolled-back' });
  } catch (error) {
    const lastError = `${reason}; restoring the old container failed: ${errorMessage(error)}`;
    return run.save({ status: 'failed', phase: 'rollback-failed', lastError }, ['rollbackReason']);
  }
}

/**
 * The old container goes; if Docker refuses, the update still stands and the leftover is named in
 * cleanupError. Then a compose service's file is brought to the new image (never failing the update).
 */
export async function finishSuccess(
  run: OperationRecorder,
  host: UpdatableDockerHost,
  composeFiles?: ComposeFileEditor,
): Promise<UpdateOperation> {
  let cleanupError: string | undefined;
  try {
    await host.forceRemoveContainer(run.op.containerId);
  } catch (error) {
    cleanupError = `the old container could not be removed: ${errorMessage(error)}`;
  }
  const { spec, oldImage, targetImage, triggerName } = run.op;
  const composeFile =
    oldImage === undefined
      ? undefined
      : await updateComposeFile(composeFiles, { labels: spec?.labels, oldImage, newImage: targetImage, triggerName });
  return run.save({
    status: 'succeeded',
    phase: 'succeeded',
    ...(cleanupError !== undefined && { cleanupError }),
    ...(composeFile && { composeFile }),
  });
}

/**
 * Runs one operation to its end and answers it settled (succeeded, rolled-back or failed). Aborting
 * `signal` cancels it: before anything was touched it ends failed in prepare, after that it rolls
 * back at the next phase boundary (or at once from inside the health gate).
 */
export async function runUpdateOperation(
  operation: UpdateOperation,
  plan: UpdatePlan,
  deps: UpdateEngineDeps,
  signal: AbortSignal,
): Promise<UpdateOperation> {
  const { host } = deps;
  const timing = { ...DEFAULT_HEALTH_TIMING, ...deps.timing };
  const run = new OperationRecorder(operation, deps);
  await run.save({ status: 'in-progress', phase: 'prepare' }, ['lastError', 'rollbackReason']);
  let prepared: Prepared;
  try {
    prepared = await prepare(run.op, plan, deps, signal);
  } catch (error) {
    const why = signal.aborted ? cancelReason(signal) : errorMessage(error);
    return run.save({ status: 'failed', phase: 'prepare', lastError: `${why}; nothing was changed` });
  }
  // Known before the first change, so a restart can always undo what follows.
  await run.save(prepared);
  const { tempName, spec, oldWasRunning } = prepared;
  const oldId = run.op.containerId;
  try {
    boundary(signal);
    await host.renameContainer(oldId, tempName);
    await run.save({ phase: 'renamed' });
    boundary(signal);
    const newId = await host.createContainer({ ...spec, image: run.op.targetImage });
    await run.save({ phase: 'new-created', newContainerId: newId });
    boundary(signal);
    if (oldWasRunning) await host.stop(oldId);
    await run.save({ phase: 'old-stopped' });
    if (oldWasRunning) {
      boundary(signal);
      await host.start(newId);
      await run.save({ phase: 'new-started' });
      if ((await checkStarted(host, newId, timing, signal)) === 'gate') {
        await run.save({ phase: 'health-gate' });
        await waitHealthy(host, newId, plan.healthTimeoutMs, timing, signal);
        await run.save({ phase: 'health-gate-passed' });
      }
    }
    boundary(signal);
  } catch (error) {
    return rollBack(run, host, signal.aborted ? cancelReason(signal) : errorMessage(error));
  }
  return finishSuccess(run, host, deps.composeFiles);
}
