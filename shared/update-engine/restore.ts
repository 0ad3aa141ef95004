import type { DockerHost, UpdatableDockerHost } from '../docker/docker-host';
import { delay } from './container-health';
import type { UpdateOperation } from './operation';
import { UpdateStepError } from './update-step-error';

/** Docker's clock and ours may differ a little: a container created this long before the operation still counts as its own. */
const CLOCK_SLACK_MS = 5_000;

/**
 * The container holding `name`, if any. The Engine resolves a reference it cannot match to an id or
 * a name as an id prefix, so once `db` is free, inspecting "db" can answer a container whose id
 * begins with "db": only a container whose name is `name` counts.
 */
async function nameHolder(host: DockerHost, name: string) {
  const found = await host.inspectContainer(name);
  return found?.name === name ? found : undefined;
}

/**
 * The new container of this operation, if Docker has it: by the id the journal recorded, else (a
 * stop between create and the journal write) the container holding the original name that is not
 * the old one and was created after the operation began.
 */
async function findNewContainer(operation: UpdateOperation, host: DockerHost) {
  if (operation.newContainerId) return host.inspectContainer(operation.newContainerId);
  const holder = await nameHolder(host, operation.containerName);
  if (!holder || holder.id === operation.containerId) return undefined;
  return holder.createdAt >= Date.parse(operation.createdAt) - CLOCK_SLACK_MS ? holder : undefined;
}

/**
 * Puts the old container back as it was: the new one removed, the old one under its own name,
 * running if it was. Idempotent, and driven by what Docker has now rather than by the journal's
 * phase alone, so it also finishes a restore that a crash interrupted. Answers whether it changed
 * anything. Throws when it cannot, leaving the old container in place (never removed here).
 */
export async function restoreOldContainer(operation: UpdateOperation, host: UpdatableDockerHost): Promise<boolean> {
  const old = await host.inspectContainer(operation.containerId);
  const fresh = await findNewContainer(operation, host);
  if (!old) {
    // Never neither: with the old container gone, the new one (if any) is kept and kept running.
    if (fresh && fresh.state !== 'running' && operation.oldWasRunning !== false)
      await host.start(fresh.id).catch(() => undefined);
    throw new UpdateStepError(
      `the old container ${operation.containerId.slice(0, 12)} is gone${fresh ? '; the new container was kept' : ''}`,
    );
  }
  let changed = false;
  if (fresh && fresh.id !== old.id) {
    await host.forceRemoveContainer(fresh.id);
    changed = true;
  }
  if (old.name !== operation.containerName) {
    const holder = await nameHolder(host, operation.containerName);
    if (holder && holder.id !== old.id) {
      throw new UpdateStepError(
        `another container (${holder.id.slice(0, 12)}) now holds the name ${operation.containerName}`,
      );
    }
    await host.renameContainer(old.id, operation.containerName);
    changed = true;
  }
  if (operation.oldWasRunning !== false && old.state !== 'running') {
    await host.start(old.id);
    changed = true;
  }
  return changed;
}

/** How long a rollback waits for an Engine that stopped answering (a dockerd restart) to answer again. */
export const ENGINE_RETURN_MS = 60_000;
const RESTORE_ATTEMPTS = 3;
const PING_EVERY_MS = 1_000;

/**
 * restoreOldContainer, tried again (up to RESTORE_ATTEMPTS in all) once the Engine answers when a
 * Docker call of it failed. An update that a dockerd restart interrupts fails in that restart, and
 * its rollback would fail with it: both containers were left, the old one under its temporary name
 * and running again by its restart policy (seen in the soak). The restore is idempotent, so trying
 * it again is safe; its own refusals (UpdateStepError: the old container gone, its name taken) are
 * decisions, not outages, and are not retried.
 */
export async function restoreOnceReachable(
  operation: UpdateOperation,
  host: UpdatableDockerHost,
  waitMs = ENGINE_RETURN_MS,
): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await restoreOldContainer(operation, host);
    } catch (error) {
      if (error instanceof UpdateStepError || attempt >= RESTORE_ATTEMPTS) throw error;
      if (!(await answersBy(host, deadline))) throw error;
    }
  }
}

/** Whether the Engine answers a ping before `deadline`, asked every PING_EVERY_MS. */
async function answersBy(host: UpdatableDockerHost, deadline: number): Promise<boolean> {
  for (;;) {
    try {
      await host.ping();
      return true;
    } catch {
      if (Date.now() + PING_EVERY_MS > deadline) return false;
      await delay(PING_EVERY_MS);
    }
  }
}

/** After a passed health gate: the new container runs (started again if a crash stopped it), the old one goes. */
export async function keepNewContainer(operation: UpdateOperation, host: UpdatableDockerHost): Promise<boolean> {
  const fresh = await findNewContainer(operation, host);
  if (!fresh) return false;
  if (operation.oldWasRunning !== false && fresh.state !== 'running') await host.start(fresh.id);
  return true;
}
