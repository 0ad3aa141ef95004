import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { Decider } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { isTerminal } from '../../../shared/update-engine';
import type { EventBus, Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { dependencyGroupOf } from './dependency-graph';
import { startUpdateBatch, type UpdateBatch } from './update-batch';
import type { UpdateService } from './update-service';
import { updateTargetOf } from './update-target';

/**
 * What happened to one member: `pending` (its wave has not started), `queued` (its operation was
 * accepted), `unchanged` (no update for it), `refused` (its update request was refused, as a single
 * update would be), `skipped` (an earlier wave failed: it was left as it is).
 */
export type MemberResult = 'pending' | 'queued' | 'unchanged' | 'refused' | 'skipped';

export interface GroupMemberView {
  containerId: string;
  containerName: string;
  wave: number;
  /** Names of its dependencies inside the group. */
  dependsOn: string[];
  result: MemberResult;
  operationId?: string;
  /** The HTTP status a refusal would have had. */
  status?: number;
  error?: string;
  details?: Record<string, unknown>;
}

export interface DependencyGroupAnswer {
  message: string;
  /** Every operation of the group carries it, later waves too. */
  batchId: string;
  rootId: string;
  rootName: string;
  waves: number;
  members: GroupMemberView[];
}

export interface DependencyGroupUpdates {
  /**
   * Plans the root's group, requests the first wave that has updates and answers; the next waves
   * follow in the background, each once every operation of the one before has succeeded.
   */
  start(rootId: string, requestedBy?: Decider): Promise<DependencyGroupAnswer>;
  /** Stops following groups: operations already queued go on, later waves are not started. */
  stop(): Promise<void>;
  /** Resolves once no group is being followed (tests). */
  idle(): Promise<void>;
}

interface PlannedMember {
  view: GroupMemberView;
  /** Looked up again when its wave starts: an earlier wave may have re-created containers. */
  identity: string;
}

const SETTLED_EVENTS = new Set(['dd:update-applied', 'dd:update-failed']);

/**
 * Dependency-group updates (docs/updates.md): the order comes from `dd.depends_on` and compose `depends_on`
 * (dependency-graph.ts); members are updated wave by wave, and a wave whose updates did not all
 * succeed stops the group, so nothing is updated on top of a dependency that stayed behind. The
 * operations carry one batchId, and dd:batch-update-completed follows the last of them. Followed in
 * memory, like bulk batches: after a hub restart, queued operations still run, later waves do not.
 */
/** Dependency-group updates: the inventory they plan from, the updates they queue, the events they wait on. */
export interface DependencyGroupUpdatesDeps {
  logger: Logger;
  now: () => number;
  containers: Pick<ContainerStore, 'get' | 'all'>;
  audit: Pick<AuditStore, 'append'>;
  events: Pick<EventBus, 'subscribe'>;
  publish: Publish;
  updates: Pick<UpdateService, 'requestUpdate' | 'get'>;
}

export function createDependencyGroupUpdates(deps: DependencyGroupUpdatesDeps): DependencyGroupUpdates {
  const log = deps.logger.child('dependency-groups');
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();

  function plan(rootId: string): { root: Container; members: PlannedMember[][] } {
    const root = deps.containers.get(rootId);
    if (!root) throw new HttpError(404, `Unknown container ${rootId.slice(0, 80)}`);
    const group = dependencyGroupOf(root, deps.containers.all());
    if ('cycle' in group) {
      throw new HttpError(409, `The dependencies of ${root.name}'s group form a cycle`, {
        reason: 'dependency-cycle',
        containers: group.cycle.map((container) => container.name),
      });
    }
    const members: PlannedMember[][] = group.waves.map((wave, index) =>
      wave.map(({ container, dependsOn }) => ({
        identity: containerIdentity(container),
        view: {
          containerId: container.id,
          containerName: container.name,
          wave: index,
          dependsOn: dependsOn.map((dependency) => dependency.name),
          result: updateTargetOf(container) ? 'pending' : 'unchanged',
        },
      })),
    );
    if (!members.flat().some((member) => member.view.result === 'pending')) {
      throw new HttpError(400, `Nothing in the dependency group of ${root.name} has an update`, {
        reason: 'no-update-available',
      });
    }
    return { root, members };
  }

  /** The member's record now, by identity (its id changes only if something else updated it meanwhile). */
  function current(member: PlannedMember): Container | undefined {
    return deps.containers.all().find((container) => containerIdentity(container) === member.identity);
  }

  async function request(member: PlannedMember, batch: UpdateBatch, requestedBy: Decider | undefined): Promise<void> {
    const { view } = member;
    try {
      const container = current(member);
      if (!container) throw new HttpError(404, `${view.containerName} is no longer in the inventory`);
      const operation = await deps.updates.requestUpdate(container.id, {
        source: 'api',
        batchId: batch.batchId,
        requestedBy,
      });
      batch.add(operation);
      Object.assign(view, { result: 'queued', operationId: operation.id });
    } catch (error) {
      view.result = 'refused';
      view.status = error instanceof HttpError ? error.status : 500;
      view.error = error instanceof HttpError ? error.message : errorMessage(error);
      if (error instanceof HttpError && error.details !== undefined) view.details = error.details;
    }
  }

  /** Resolves with the operations' final statuses once all have settled, or undefined if the hub stops first. */
  function settled(operationIds: readonly string[]): Promise<Map<string, string> | undefined> {
    return new Promise((resolve) => {
      const statuses = () => {
        const found = operationIds.map((id) => deps.updates.get(id));
        if (!found.every((operation) => operation && isTerminal(operation))) return undefined;
        return new Map(found.flatMap((operation) => (operation ? [[operation.id, operation.status] as const] : [])));
      };
      const finish = (value: Map<string, string> | undefined) => {
        subscription.unsubscribe();
        stopping.signal.removeEventListener('abort', onStop);
        resolve(value);
      };
      const onStop = () => finish(undefined);
      const subscription = deps.events.subscribe((event) => {
        if (!SETTLED_EVENTS.has(event.type)) return;
        const done = statuses();
        if (done) finish(done);
      });
      stopping.signal.addEventListener('abort', onStop, { once: true });
      const done = stopping.signal.aborted ? undefined : statuses();
      if (done || stopping.signal.aborted) finish(done);
    });
  }

  async function audit(root: Container, members: PlannedMember[][], outcome: string): Promise<void> {
    const summary = members
      .map(
        (wave, index) =>
          `wave ${index}: ${wave.map((member) => `${member.view.containerName} ${member.view.result}`).join(', ')}`,
      )
      .join('; ');
    await deps.audit.append({
      action: 'dependency-group-update',
      containerName: root.name,
      status: outcome,
      details: summary.slice(0, 500),
    });
  }

  /** Runs the waves in order; `firstRequested` is told once the first wave with updates has been requested. */
  async function follow(
    root: Container,
    members: PlannedMember[][],
    batch: UpdateBatch,
    firstRequested: () => void,
    requestedBy: Decider | undefined,
  ): Promise<void> {
    let failed: string[] = [];
    try {
      for (const wave of members) {
        const pending = wave.filter((member) => member.view.result === 'pending');
        if (failed.length > 0 || stopping.signal.aborted) {
          for (const member of pending) {
            member.view.result = 'skipped';
            member.view.error =
              failed.length > 0
                ? `not updated: ${failed.join(', ')} did not update`
                : 'not updated: the hub stopped first';
          }
          continue;
        }
        for (const member of pending) await request(member, batch, requestedBy);
        if (pending.length > 0) firstRequested();
        const operationIds = pending.flatMap((member) => (member.view.operationId ? [member.view.operationId] : []));
        if (operationIds.length === 0) continue;
        const statuses = await settled(operationIds);
        if (!statuses) continue;
        failed = pending
          .filter((member) => member.view.operationId && statuses.get(member.view.operationId) !== 'succeeded')
          .map((member) => `${member.view.containerName} (${statuses.get(member.view.operationId ?? '')})`);
      }
    } finally {
      firstRequested();
      batch.seal();
    }
    const all = members.flat().map((member) => member.view.result);
    const outcome =
      failed.length > 0 || all.includes('skipped') ? 'failed' : all.includes('refused') ? 'partial' : 'succeeded';
    await audit(root, members, outcome).catch((error: unknown) =>
      log.warn('the dependency group audit entry was not written', { error: errorMessage(error) }),
    );
  }

  return {
    async start(rootId, requestedBy) {
      const { root, members } = plan(rootId);
      const batch = startUpdateBatch(deps);
      let answer!: () => void;
      const requested = new Promise<void>((resolve) => {
        answer = resolve;
      });
      const work = follow(root, members, batch, answer, requestedBy).catch((error: unknown) =>
        log.error('following a dependency group failed', { root: root.name, error: errorMessage(error) }),
      );
      running.add(work);
      void work.finally(() => running.delete(work));
      await requested;
      const views = members.flat().map((member) => ({ ...member.view }));
      const queued = views.filter((view) => view.result === 'queued').length;
      return {
        message: `${queued} update${queued === 1 ? '' : 's'} queued in the first wave of ${root.name}'s dependency group; ${members.length} wave${members.length === 1 ? '' : 's'} in all`,
        batchId: batch.batchId,
        rootId: root.id,
        rootName: root.name,
        waves: members.length,
        members: views,
      };
    },
    async stop() {
      stopping.abort();
      await Promise.all(running);
    },
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
