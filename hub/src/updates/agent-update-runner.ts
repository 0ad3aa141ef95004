import type { ContainerSpec } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { Container } from '../../../shared/schemas/container';
import { isTerminal, type UpdateOperation } from '../../../shared/update-engine';
import { EdgeDockerHost } from '../agents/edge-docker-host';
import { EdgeRequestError } from '../agents/edge-requests';
import { HttpError } from '../http/http-error';
import { isoNow, type UpdateContext } from './update-context';
import { auditHook } from './update-hooks';

/**
 * Updates of edge agents' containers (docs/updates.md "On edge agents"): the agent runs the shared
 * engine next to its Docker (`container.update`, docs/edge-protocol.md "Updates"); the hub mirrors
 * every phase the agent reports into its own operation record, so the API, the events and the
 * settle effects are the same as for a local container.
 */

type Located = { agent?: string | undefined; watcher: string };

/** The agent watcher's host, where the hub has one (it exists once the agent announced the watcher). */
export function agentHostOf(context: UpdateContext, located: Located): EdgeDockerHost | undefined {
  const watcher = context.hub.fleet.find(located.watcher, located.agent);
  return watcher?.host instanceof EdgeDockerHost ? watcher.host : undefined;
}

/** A request for an agent's container is accepted only while the agent is connected (503 otherwise). */
export function assertAgentReachable(context: UpdateContext, container: Container): void {
  const host = agentHostOf(context, { agent: container.agent, watcher: container.watcher });
  if (!host?.connected) {
    throw new HttpError(503, `The edge agent ${container.agent} is not connected; nothing was changed`, {
      agent: container.agent,
      reason: 'agent-not-connected',
    });
  }
}

/** What the agent reports, with the fields that identify the operation kept as the hub recorded them. */
function trusted(recorded: UpdateOperation, reported: UpdateOperation): UpdateOperation {
  const { id, kind, source, containerName, containerId, watcher, agent, createdAt, triggerName, batchId, backupId } =
    recorded;
  return {
    ...reported,
    id,
    kind,
    source,
    containerName,
    containerId,
    watcher,
    createdAt,
    ...(agent !== undefined && { agent }),
    ...(triggerName !== undefined && { triggerName }),
    ...(batchId !== undefined && { batchId }),
    ...(backupId !== undefined && { backupId }),
  };
}

const HOOK_STAGES = ['pre', 'post'] as const;

/**
 * The agent's dd.hook.* outcomes that `next` reports first: audited like the hub's own hooks
 * (update-hooks.ts), once each, since the record they are compared with already holds the earlier ones.
 */
async function auditNewHooks(context: UpdateContext, previous: UpdateOperation, next: UpdateOperation): Promise<void> {
  for (const stage of HOOK_STAGES) {
    const outcome = next.hooks?.[stage];
    if (outcome === undefined || previous.hooks?.[stage] !== undefined) continue;
    await auditHook(context.hub, stage, next, outcome.status === 'success' ? undefined : (outcome.detail ?? 'failed'));
  }
}

/**
 * Saves each reported change once, in order, stamped with the hub's clock (the agent's may differ;
 * its own stamps only order its reports); never goes back from a settled state. `save` (the update
 * service's journal) writes a report the store refuses (a full disk) again until it is stored: the
 * agent reports an operation's end only once.
 */
function createMirror(
  context: UpdateContext,
  recorded: UpdateOperation,
  save: (operation: UpdateOperation) => Promise<void>,
) {
  let latest = recorded;
  let reportedAt = '';
  let chain = Promise.resolve();
  const push = (reported: UpdateOperation): Promise<void> => {
    chain = chain.then(async () => {
      if (isTerminal(latest) || reported.updatedAt < reportedAt) return;
      const same = reported.status === latest.status && reported.phase === latest.phase && sameHooks(reported, latest);
      if (reported.updatedAt === reportedAt && same) return;
      const next = { ...trusted(recorded, reported), updatedAt: isoNow(context) };
      await save(next);
      const previous = latest;
      latest = next;
      reportedAt = reported.updatedAt;
      try {
        await auditNewHooks(context, previous, next);
      } catch (error) {
        context.logger.warn(`audit of the agent's hooks of operation ${next.id} failed: ${errorMessage(error)}`);
      }
    });
    return chain;
  };
  return { push, latest: () => latest, drained: () => chain };
}

function sameHooks(a: UpdateOperation, b: UpdateOperation): boolean {
  return HOOK_STAGES.every((stage) => a.hooks?.[stage]?.status === b.hooks?.[stage]?.status);
}

export interface AgentRunOptions {
  healthTimeoutMs: number;
  auth?: { username: string; password: string; serverAddress: string } | undefined;
  /** A rollback's backup configuration: the agent creates the container with it (`options.spec`). */
  spec?: ContainerSpec | undefined;
  /** Aborted when the operation is cancelled by a user, or the hub stops. */
  signal: AbortSignal;
  /** True when the abort is a user's cancel (the agent rolls back); otherwise the hub only stops waiting. */
  cancelledByUser(): boolean;
  save(operation: UpdateOperation): Promise<void>;
}

/**
 * Runs a queued operation on its agent and answers it as the hub last recorded it: settled, or
 * still in progress when the hub stopped waiting (it is taken up again at the next start).
 */
export async function runOnAgent(
  context: UpdateContext,
  operation: UpdateOperation,
  options: AgentRunOptions,
): Promise<UpdateOperation> {
  const host = agentHostOf(context, operation);
  const failed = (why: string): UpdateOperation => ({
    ...operation,
    status: 'failed',
    phase: 'prepare',
    lastError: `${why}; nothing was changed`,
  });
  if (!host?.connected) return failed(`the edge agent ${operation.agent} is not connected`);
  const mirror = createMirror(context, operation, options.save);
  const watching = host.operations.watch(operation.id, (reported) => void mirror.push(reported).catch(() => undefined));
  const request = new AbortController();
  const stopWaiting = new AbortController();
  const onAbort = () => (options.cancelledByUser() ? request.abort(options.signal.reason) : stopWaiting.abort());
  options.signal.addEventListener('abort', onAbort, { once: true });
  const sentOn = host.linkGeneration;
  try {
    const settled = await Promise.race([
      host.runUpdate(
        operation,
        { healthTimeoutMs: options.healthTimeoutMs, auth: options.auth, ...(options.spec && { spec: options.spec }) },
        request.signal,
      ),
      whenAborted(stopWaiting.signal),
    ]);
    if (settled) await mirror.push(settled);
  } catch (error) {
    const began = host.operations.get(operation.id) !== undefined;
    const refused =
      error instanceof EdgeRequestError && ['not-found', 'unsupported', 'invalid', 'busy'].includes(error.code);
    if (refused && !began)
      return failed(`the edge agent ${operation.agent} refused the update: ${errorMessage(error)}`);
    // The link went down or the user cancelled: the agent goes on (or rolls back) and reports the end,
    // unless the request never reached it: then, once it is back and has reported what it knows, nothing ran.
    const settled = await reportedEnd(host, operation.id, sentOn, stopWaiting.signal);
    if (settled === 'unknown')
      return failed(`the edge agent ${operation.agent} never received the update (the link dropped first)`);
    if (settled) await mirror.push(settled);
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    watching.close();
  }
  await mirror.drained();
  return mirror.latest();
}

/** After a hub restart: waits for the agent to report the end of an operation it was running. */
export async function awaitAgentOperation(
  context: UpdateContext,
  operation: UpdateOperation,
  save: (operation: UpdateOperation) => Promise<void>,
  signal: AbortSignal,
): Promise<UpdateOperation | undefined> {
  const host = agentHostOf(context, operation);
  if (!host) return undefined;
  const mirror = createMirror(context, operation, save);
  const watching = host.operations.watch(operation.id, (reported) => void mirror.push(reported).catch(() => undefined));
  try {
    const settled = await host.operations.settled(operation.id, signal);
    if (settled) await mirror.push(settled);
  } finally {
    watching.close();
  }
  await mirror.drained();
  const latest = mirror.latest();
  return isTerminal(latest) ? latest : undefined;
}

/**
 * The operation as the agent reports it settled; `unknown` when the agent is connected again, has
 * sent its first snapshot (every operation it knows is reported before it) and never mentioned this
 * one; undefined when `signal` aborts first.
 */
async function reportedEnd(
  host: EdgeDockerHost,
  operationId: string,
  sentOn: number,
  signal: AbortSignal,
): Promise<UpdateOperation | 'unknown' | undefined> {
  // Back and synced on a later session than the request went out on: the agent's reports are all in.
  const forgotten = () =>
    host.linkGeneration !== sentOn && host.inventorySynced && host.operations.get(operationId) === undefined;
  if (forgotten()) return 'unknown';
  const done = new AbortController();
  const stop = () => done.abort();
  signal.addEventListener('abort', stop, { once: true });
  const settled = host.operations.settled(operationId, done.signal).then((operation) => ({ operation }));
  try {
    for (;;) {
      const next = await Promise.race([settled, host.nextSnapshot(done.signal).then((synced) => ({ synced }))]);
      if ('operation' in next) return next.operation;
      if (!next.synced) return undefined;
      if (forgotten()) return 'unknown';
    }
  } finally {
    signal.removeEventListener('abort', stop);
    done.abort();
  }
}

function whenAborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}
