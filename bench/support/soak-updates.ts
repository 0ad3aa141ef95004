/**
 * Container updates of the soak (bench/support/soak-run.ts): before each planned moment a newer tag
 * of a real agent's image is pushed to the registry, the hub is asked to watch until it lists the
 * update, and at the moment (just before a hub SIGKILL, a dockerd restart, the full disk, or
 * periodically through the registry proxy's faults) `POST /api/v1/containers/{id}/update` is called.
 * Every operation id the hub acknowledges (202) is kept; at the end each must be found and settled.
 */
import type { Container } from '../../shared/schemas/container';

/** The statuses an update operation ends in (shared/update-engine/operation.ts isTerminal). */
export const TERMINAL_STATUSES = ['succeeded', 'rolled-back', 'failed'] as const;

/** One HTTP call of the workload, recorded by the soak's ledger; undefined when no hub answered. */
export type SoakCall = (
  path: string,
  route: string,
  init?: RequestInit,
) => Promise<{ status: number; body: unknown } | undefined>;

/** A real agent's watched container and how a newer tag of its image is pushed. */
export interface UpdateTarget {
  agent: string;
  containerName: string;
  /** Pushes `<repository>:<tag>` to the registry (straight, not through the fault proxy). */
  publish(tag: string): Promise<void>;
}

export interface AcknowledgedUpdate {
  operationId: string;
  agent: string;
  toVersion: string;
  /** ms since the run started. */
  t: number;
  /** The fault the request was timed against. */
  meets: string;
}

/** What the update loops recorded; the check reads it at the end. */
export interface UpdateLog {
  acknowledged: AcknowledgedUpdate[];
  /** Refusals met on the way to an acknowledgement, by status (409 in notify mode, 503, 507, ...). */
  refusals: Map<number, number>;
  /** Rounds given up: the tag could not be published or the hub never listed the update in time. */
  skipped: string[];
}

export interface UpdateMoment {
  /** ms since the run started. */
  at: number;
  meets: string;
}

export interface UpdateLoopOptions {
  call: SoakCall;
  now(): number;
  ended(): boolean;
  log(message: string): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a round may look for the hub's listing of the new tag, and then for an acknowledgement. */
const PENDING_TIMEOUT_MS = 60_000;
const ACK_TIMEOUT_MS = 30_000;

/** The hub's record of the target's container, if listed. */
async function recordOf(options: UpdateLoopOptions, target: UpdateTarget): Promise<Container | undefined> {
  const answer = await options.call(
    `/api/v1/containers?agent=${encodeURIComponent(target.agent)}&limit=200`,
    'GET /containers',
  );
  if (answer?.status !== 200) return undefined;
  return (answer.body as { data: Container[] }).data.find((container) => container.name === target.containerName);
}

/**
 * The container as the hub has it after a watch of it alone (`POST /api/v1/containers/{id}/watch`:
 * the other container's checks through the proxy's hangs do not hold it up).
 */
async function watched(options: UpdateLoopOptions, target: UpdateTarget): Promise<Container | undefined> {
  const record = await recordOf(options, target);
  if (!record) return undefined;
  const answer = await options.call(
    `/api/v1/containers/${encodeURIComponent(record.id)}/watch`,
    'POST /containers/{id}/watch',
    { method: 'POST' },
  );
  return answer?.status === 200 ? (answer.body as Container) : undefined;
}

/** Watches until the hub lists the container with an update to `tag`; undefined when not in time. */
async function pendingUpdate(
  options: UpdateLoopOptions,
  target: UpdateTarget,
  tag: string,
  deadline: number,
): Promise<Container | undefined> {
  while (options.now() < deadline && !options.ended()) {
    const record = await watched(options, target);
    if (record?.updateAvailable && record.updateKind.kind === 'tag' && record.updateKind.remoteValue === tag)
      return record;
    await sleep(1_000);
  }
  return undefined;
}

/** Until the operation is settled (or `deadline`): the next round starts from the container it left. */
async function settledBy(options: UpdateLoopOptions, operationId: string, deadline: number): Promise<void> {
  while (options.now() < deadline && !options.ended()) {
    const answer = await options.call(`/api/v1/update-operations/${operationId}`, 'GET /update-operations/{id}');
    const status = (answer?.body as { status?: string } | undefined)?.status;
    if (answer?.status === 200 && status !== undefined && isTerminalStatus(status)) return;
    await sleep(1_000);
  }
}

/**
 * Asks for the update until the hub acknowledges it: notify mode (the workload flips updateMode),
 * an earlier update still running, the hub or the agent away and the full disk are all waited out.
 */
async function requestUpdate(
  options: UpdateLoopOptions,
  target: UpdateTarget,
  record: Container,
  log: UpdateLog,
): Promise<string | undefined> {
  const deadline = options.now() + ACK_TIMEOUT_MS;
  let id = record.id;
  while (options.now() < deadline && !options.ended()) {
    const answer = await options.call(
      `/api/v1/containers/${encodeURIComponent(id)}/update`,
      'POST /containers/{id}/update',
      { method: 'POST' },
    );
    if (answer?.status === 202) return (answer.body as { operationId: string }).operationId;
    if (answer) log.refusals.set(answer.status, (log.refusals.get(answer.status) ?? 0) + 1);
    // 404 or 400: the container was re-created under a new id (a recovery, a dockerd restart) meanwhile.
    if (answer?.status === 404 || answer?.status === 400) {
      const again = await recordOf(options, target);
      if (!again?.updateAvailable) return undefined;
      id = again.id;
    }
    await sleep(answer ? 300 : 1_000);
  }
  return undefined;
}

/**
 * One target's rounds: before each moment an update pending (one listed already, e.g. after a failed
 * round, or a newer tag pushed and watched for), then the update requested at the moment. A request
 * the hub answers with no update (the listing was of the container an earlier round replaced) starts
 * the round's preparation again, late.
 */
export async function runUpdateLoop(
  options: UpdateLoopOptions,
  target: UpdateTarget,
  moments: readonly UpdateMoment[],
  log: UpdateLog,
): Promise<void> {
  // 1.1.0 may already be published by the set-up: each tag pushed goes above everything before it.
  const tags = { minor: 1 };
  let previous: string | undefined;
  for (const moment of moments) {
    if (previous) await settledBy(options, previous, moment.at);
    const deadline = Math.max(moment.at, options.now()) + PENDING_TIMEOUT_MS;
    let outcome = 'not acknowledged';
    while (!options.ended() && options.now() < deadline) {
      const ready = await readyUpdate(options, target, tags, deadline);
      if (typeof ready === 'string') {
        outcome = ready;
        break;
      }
      const wait = moment.at - options.now();
      if (wait > 0) await sleep(wait);
      const t = options.now();
      const operationId = await requestUpdate(options, target, ready.record, log);
      if (operationId) {
        log.acknowledged.push({ operationId, agent: target.agent, toVersion: ready.tag, t, meets: moment.meets });
        options.log(`update ${operationId} of ${target.containerName} to ${ready.tag} acknowledged (${moment.meets})`);
        outcome = '';
        previous = operationId;
        break;
      }
    }
    if (outcome) log.skipped.push(`${target.containerName} (${moment.meets}): ${outcome}`);
  }
}

/** The container listed with an update pending (pushing a newer tag first if none is), or why not. */
async function readyUpdate(
  options: UpdateLoopOptions,
  target: UpdateTarget,
  tags: { minor: number },
  deadline: number,
): Promise<{ record: Container; tag: string } | string> {
  const listed = await watched(options, target);
  if (listed?.updateAvailable && listed.updateKind.kind !== 'unknown')
    return { record: listed, tag: listed.updateKind.remoteValue };
  tags.minor += 1;
  const tag = `1.${tags.minor}.0`;
  if (!(await publishWithRetry(options, target, tag, deadline))) return `${tag} not published`;
  const record = await pendingUpdate(options, target, tag, deadline);
  return record ? { record, tag } : `${tag} not listed`;
}

/** The registry's own port, not the proxy's; the agent's dockerd may be restarting, so it is tried again. */
async function publishWithRetry(
  options: UpdateLoopOptions,
  target: UpdateTarget,
  tag: string,
  deadline: number,
): Promise<boolean> {
  while (options.now() < deadline && !options.ended()) {
    try {
      await target.publish(tag);
      return true;
    } catch (error) {
      options.log(`publishing ${target.containerName} ${tag} failed, trying again: ${String(error).slice(0, 200)}`);
      await sleep(2_000);
    }
  }
  return false;
}

/** What the hub answered for one operation at the end: its status, or why none (404, no answer). */
export type OperationState = { status: string; phase?: string; lastError?: string } | { missing: string };

export interface UpdateVerdict {
  passed: boolean | undefined;
  reason: string;
  /** Operations per final status (and `missing`, `unsettled`). */
  counts: Record<string, number>;
}

/**
 * The invariant: every acknowledged operation is found and in a terminal state. `states` holds what
 * the hub answered for each acknowledged id (and any other operation of the same containers).
 * Not run when nothing was acknowledged: an invariant over no operation proves nothing.
 */
export function judgeUpdateOperations(
  acknowledged: readonly Pick<AcknowledgedUpdate, 'operationId' | 'meets'>[],
  states: ReadonlyMap<string, OperationState>,
  skipped: readonly string[] = [],
): UpdateVerdict {
  const counts: Record<string, number> = {};
  const bad: string[] = [];
  const ids = new Set([...acknowledged.map((update) => update.operationId), ...states.keys()]);
  const meets = new Map(acknowledged.map((update) => [update.operationId, update.meets]));
  for (const id of ids) {
    const state = states.get(id) ?? { missing: 'not asked' };
    const key = 'missing' in state ? 'missing' : isTerminalStatus(state.status) ? state.status : 'unsettled';
    counts[key] = (counts[key] ?? 0) + 1;
    if (key === 'missing' || key === 'unsettled')
      bad.push(
        `${id} (${meets.get(id) ?? 'not requested by the soak'}): ${'missing' in state ? state.missing : `${state.status} in ${state.phase ?? '?'}`}`,
      );
  }
  const tally = Object.entries(counts)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const skippedText = skipped.length ? `; ${skipped.length} rounds skipped (${skipped.slice(0, 3).join('; ')})` : '';
  if (acknowledged.length === 0)
    return { passed: undefined, reason: `no update was acknowledged${skippedText}`, counts };
  return {
    passed: bad.length === 0,
    reason:
      `${acknowledged.length} updates acknowledged (202), ${ids.size} operations of the real agents' containers at the end: ${tally}` +
      (bad.length ? `; not terminal: ${bad.slice(0, 5).join('; ')}` : '') +
      skippedText,
    counts,
  };
}

function isTerminalStatus(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/**
 * Every operation of the targets' containers the hub knows (newest first per container), and each
 * acknowledged id looked up on its own: an acknowledged operation the lists do not show is still asked.
 */
export async function collectOperationStates(
  hubUrl: string,
  targets: readonly UpdateTarget[],
  acknowledged: readonly AcknowledgedUpdate[],
): Promise<Map<string, OperationState>> {
  const states = new Map<string, OperationState>();
  for (const target of targets) {
    const list = await fetch(`${hubUrl}/api/v1/containers?agent=${encodeURIComponent(target.agent)}&limit=200`);
    const record = ((await list.json()) as { data: Container[] }).data.find((c) => c.name === target.containerName);
    if (!record) continue;
    const operations = await fetch(`${hubUrl}/api/v1/containers/${record.id}/update-operations?limit=100`);
    if (!operations.ok) {
      // Not knowing the container's operations is not a pass.
      states.set(`${target.containerName}'s operations`, {
        missing: `GET /api/v1/containers/{id}/update-operations answered ${operations.status}`,
      });
      continue;
    }
    for (const operation of ((await operations.json()) as { data: { id: string; status: string; phase: string }[] })
      .data)
      states.set(operation.id, operation);
  }
  for (const { operationId } of acknowledged) {
    if (states.has(operationId)) continue;
    const response = await fetch(`${hubUrl}/api/v1/update-operations/${operationId}`).catch(() => undefined);
    if (!response) states.set(operationId, { missing: 'no hub answered' });
    else if (response.status === 200) states.set(operationId, (await response.json()) as { status: string });
    else states.set(operationId, { missing: `GET /api/v1/update-operations/{id} answered ${response.status}` });
  }
  return states;
}

/** True when every acknowledged operation is settled (the end's settling waits for it). */
export async function allSettled(hubUrl: string, acknowledged: readonly AcknowledgedUpdate[]): Promise<boolean> {
  for (const { operationId } of acknowledged) {
    const response = await fetch(`${hubUrl}/api/v1/update-operations/${operationId}`).catch(() => undefined);
    if (response?.status !== 200) return false;
    const { status } = (await response.json()) as { status: string };
    if (!isTerminalStatus(status)) return false;
  }
  return true;
}
