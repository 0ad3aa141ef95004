import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import {
  APPROVAL_STATES,
  type Approval,
  type ApprovalState,
  type Decider,
  OPEN_APPROVAL_STATES,
} from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import { SNOOZE_MAX_DAYS } from '../../../shared/schemas/update-policy';
import { DAY_MS, parseTimestamp, toIsoString } from '../../../shared/update/timestamp';
import { containerIdentity } from '../../../shared/update/update-clock';
import { TEMPORARY_NAME, type UpdateOperation } from '../../../shared/update-engine';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { AppliedChange } from '../notifications/inventory-events';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import { createSerialQueue } from '../store/validated-storage';
import type { ApprovalGate } from '../updates/approval-gate';
import { changeUpdatePolicy } from '../updates/update-policy-change';
import { type UpdateTarget, updateTargetOf } from '../updates/update-target';
import { approvalRequired, type GroupApprovalPolicy } from './approval-policy';
import { createApprovalStore } from './approval-store';

/** What the approvals read and tell, and the update path an approval runs through. */
export interface ApprovalServiceDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  containers: Pick<ContainerStore, 'all' | 'get' | 'put' | 'identityState' | 'setIdentityState'>;
  settings: Pick<SettingsStore, 'get'>;
  publish: Publish;
  /** The seam for group policies (not built yet): a group's say between the label and the setting. */
  groupPolicy?: GroupApprovalPolicy | undefined;
  /** Runs an approved update through the normal update path (bound once the update service exists). */
  requestUpdate: (containerId: string) => Promise<UpdateOperation>;
  /**
   * DD_APPROVALS_SEPARATE (docs/approvals.md "Separation of duties"): who requested an update cannot
   * approve it; `partyOf` tells the person behind a user or a key. Undefined: off.
   */
  separateDuties?: { partyOf: (actor: Decider) => string } | undefined;
}

export interface ApprovalFilter {
  state?: ApprovalState | undefined;
  /** A container id, name or identity. */
  container?: string | undefined;
}

/** How long a deferral lasts: an instant, or hours from now. */
export type DeferBy = { until: string; hours?: undefined } | { hours: number; until?: undefined };

/**
 * Update approvals (docs/approvals.md): a container whose policy asks for them gets one approval per
 * candidate, when the update is detected or requested; its updates are refused (409
 * `approval-required`) until the approval is approved, which runs the update; a rejection skips the
 * candidate and a deferral snoozes it, through the container's update policy.
 */
export interface ApprovalService extends ApprovalGate {
  load(): Promise<void>;
  /** Whether this container's updates wait for an approval now. */
  required(container: Container): boolean;
  /** After each applied observation: approvals for new candidates, older ones superseded, lapsed deferrals reopened. */
  inventoryApplied(changes: readonly AppliedChange[]): Promise<void>;
  /** The open approval of the container's current candidate, if any (notifications). */
  openFor(container: Container): Approval | undefined;
  list(filter: ApprovalFilter): Approval[];
  get(id: string): Approval | undefined;
  summary(): Record<ApprovalState, number> & { total: number };
  /** Throws 403 `separation-of-duties` when `by` requested this update and DD_APPROVALS_SEPARATE is on. */
  approve(id: string, by: Decider): Promise<{ approval: Approval; operation: UpdateOperation }>;
  reject(id: string, by: Decider, comment?: string): Promise<Approval>;
  defer(id: string, by: Decider, deferBy: DeferBy, comment?: string): Promise<Approval>;
}

const candidateOf = (target: Pick<UpdateTarget, 'targetImage' | 'toVersion'>) =>
  `${target.targetImage}@${target.toVersion}`;
const HOUR_MS = 3_600_000;
/** Requesters kept per approval: enough for any team, bounded against a script that retries with many keys. */
const MAX_REQUESTERS = 50;
const sameActor = (a: Decider, b: Decider) => a.kind === b.kind && a.name === b.name;

/** The states an approval may be decided from, per decision. */
const DECIDABLE: Readonly<Record<'approve' | 'reject' | 'defer', readonly ApprovalState[]>> = {
  approve: ['pending', 'deferred'],
  reject: ['pending', 'deferred', 'approved'],
  defer: ['pending', 'deferred'],
};

export function createApprovalService(deps: ApprovalServiceDeps): ApprovalService {
  const logger = deps.logger.child('approvals');
  const store = createApprovalStore(deps.storage, logger.child('store'));
  // Every read-modify-write in one line, so two requests never open two approvals for one candidate.
  const serial = createSerialQueue();
  const isoNow = () => new Date(deps.now()).toISOString();

  /** The newest approval of this identity and candidate. */
  function findCandidate(identity: string, candidate: string): Approval | undefined {
    return store.ofIdentity(identity).find((approval) => candidateOf(approval) === candidate);
  }

  function containerOf(approval: Approval): Container | undefined {
    const byId = deps.containers.get(approval.containerId);
    if (byId && containerIdentity(byId) === approval.identity) return byId;
    return deps.containers.all().find((container) => containerIdentity(container) === approval.identity);
  }

  /** A deferral whose time has passed waits for a decision again. */
  const lapsed = (approval: Approval) =>
    approval.state === 'deferred' && (parseTimestamp(approval.deferredUntil) ?? 0) <= deps.now();

  async function save(approval: Approval, event: 'dd:approval-requested' | 'dd:approval-updated'): Promise<Approval> {
    await store.save(approval);
    deps.publish(event, approval);
    return approval;
  }

  async function change(approval: Approval, fields: Partial<Approval>): Promise<Approval> {
    return save({ ...approval, ...fields, updatedAt: isoNow() }, 'dd:approval-updated');
  }

  /** Opens a pending approval of the container's candidate; the identity's older open ones are superseded. */
  async function open(
    container: Container,
    target: UpdateTarget,
    origin: Approval['origin'],
    requestedBy?: Decider,
  ): Promise<Approval> {
    const kind = container.updateKind.kind === 'digest' ? 'digest' : 'tag';
    const now = isoNow();
    const approval: Approval = {
      id: crypto.randomUUID(),
      identity: containerIdentity(container),
      containerId: container.id,
      containerName: container.name,
      watcher: container.watcher,
      ...(container.agent !== undefined && { agent: container.agent }),
      ...target,
      updateKind: kind,
      state: 'pending',
      origin,
      ...(requestedBy && { requestedBy: [requestedBy] }),
      createdAt: now,
      updatedAt: now,
    };
    await supersede(approval.identity, candidateOf(target), approval.id);
    logger.info('an update waits for approval', { container: container.name, target: candidateOf(target), origin });
    return save(approval, 'dd:approval-requested');
  }

  /** The identity's open approvals of another candidate than `current`. */
  const outdated = (identity: string, current: string | undefined) =>
    store
      .ofIdentity(identity)
      .filter((approval) => OPEN_APPROVAL_STATES.includes(approval.state) && candidateOf(approval) !== current);

  /** Open approvals of the identity for any other candidate: a newer one (or none) replaced them. */
  async function supersede(identity: string, current: string | undefined, by?: string): Promise<void> {
    for (const approval of outdated(identity, current)) {
      await change(approval, { state: 'superseded', ...(by !== undefined && { supersededBy: by }) });
    }
  }

  /**
   * Keeps the approvals of one container in step with what its last check found; undefined when
   * that changes nothing, which is what a watch cycle finds for almost every container: a
   * thousand of them are passed over without a promise each (issue 18).
   */
  function observe(container: Container): Promise<unknown> | undefined {
    // The renamed old container of an update in progress is never updated itself.
    if (TEMPORARY_NAME.test(container.name)) return undefined;
    const identity = containerIdentity(container);
    const target = updateTargetOf(container);
    if (!target || !approvalRequired(deps.settings.get(), container, deps.groupPolicy)) {
      // Nothing pending any more (updated, or the candidate withdrawn): open approvals are moot.
      return !target && outdated(identity, undefined).length > 0 ? supersede(identity, undefined) : undefined;
    }
    const candidate = candidateOf(target);
    const existing = findCandidate(identity, candidate);
    if (!existing || existing.state === 'superseded') return open(container, target, 'update-available');
    if (outdated(identity, candidate).length === 0 && !lapsed(existing)) return undefined;
    return (async () => {
      await supersede(identity, candidate);
      if (lapsed(existing)) await change(existing, { state: 'pending' });
    })();
  }

  function decidable(approval: Approval | undefined, id: string, decision: keyof typeof DECIDABLE): Approval {
    if (!approval) throw new HttpError(404, `Unknown approval ${id.slice(0, 80)}`);
    if (!DECIDABLE[decision].includes(approval.state)) {
      throw new HttpError(409, `The approval is ${approval.state}; it cannot be ${decision}d now`, {
        reason: 'approval-decided',
        state: approval.state,
      });
    }
    return approval;
  }

  /** The container of an approval whose candidate is still the one pending; 409 otherwise. */
  function currentContainer(approval: Approval): Container {
    const container = containerOf(approval);
    const target = container && updateTargetOf(container);
    if (!container || !target || candidateOf(target) !== candidateOf(approval)) {
      throw new HttpError(409, `${approval.containerName} no longer has ${approval.toVersion} pending`, {
        reason: 'candidate-changed',
      });
    }
    return container;
  }

  /** The 409 of an update that waits for this approval (docs/approvals.md "Update requests"). */
  function refusal(container: Container, target: UpdateTarget, approval: Approval | undefined): HttpError {
    const rejected = approval?.state === 'rejected';
    return new HttpError(
      409,
      rejected
        ? `The update of ${container.name} to ${target.toVersion} was rejected`
        : `The update of ${container.name} to ${target.toVersion} waits for approval${approval ? ` ${approval.id}` : ''}`,
      {
        reason: rejected ? 'approval-rejected' : 'approval-required',
        ...(approval && { approvalId: approval.id, state: lapsed(approval) ? 'pending' : approval.state }),
      },
    );
  }

  /** Remembers who asked for the update while it waits: they may not approve it (separation of duties). */
  async function noteRequester(approval: Approval, requestedBy: Decider | undefined): Promise<Approval> {
    const known = approval.requestedBy ?? [];
    if (!requestedBy || known.length >= MAX_REQUESTERS || known.some((actor) => sameActor(actor, requestedBy)))
      return approval;
    return change(approval, { requestedBy: [...known, requestedBy] });
  }

  /** 403 when the decider (or the user behind the key) is one of those who requested the update. */
  function assertNotRequester(approval: Approval, by: Decider): void {
    const separate = deps.separateDuties;
    if (!separate) return;
    const party = separate.partyOf(by);
    if (!(approval.requestedBy ?? []).some((actor) => separate.partyOf(actor) === party)) return;
    throw new HttpError(403, 'Who requested this update cannot approve it (DD_APPROVALS_SEPARATE)', {
      reason: 'separation-of-duties',
    });
  }

  /** An approved candidate (or one approved and run before: a retry after a rollback) passes. */
  const passes = (approval: Approval | undefined) => approval?.state === 'approved' || approval?.state === 'executed';

  const decided = (by: Decider) => ({ decidedBy: by, decidedAt: isoNow() });

  async function audit(
    action: 'update-approved' | 'update-rejected' | 'update-deferred',
    approval: Approval,
    by: Decider,
    details: string,
  ): Promise<void> {
    await deps.audit.append({
      action,
      containerName: approval.containerName,
      containerImage: approval.targetImage,
      fromVersion: approval.fromVersion,
      toVersion: approval.toVersion,
      status: approval.state,
      details: `${details} by ${by.kind === 'anonymous' ? 'an anonymous caller' : `${by.kind} ${by.name}`}`.slice(
        0,
        500,
      ),
    });
  }

  function deferEnd(deferBy: DeferBy): number {
    const now = deps.now();
    const until = deferBy.hours !== undefined ? now + deferBy.hours * HOUR_MS : parseTimestamp(deferBy.until);
    if (until === undefined || until <= now)
      throw new HttpError(400, 'until must lie in the future', { reason: 'defer-not-in-future' });
    if (until > now + SNOOZE_MAX_DAYS * DAY_MS)
      throw new HttpError(400, `A deferral lasts at most ${SNOOZE_MAX_DAYS} days`, { reason: 'defer-too-far' });
    return until;
  }

  return {
    load: () => store.load(),
    required: (container) => approvalRequired(deps.settings.get(), container, deps.groupPolicy),

    admit: (container, target, source, requestedBy) =>
      serial(async () => {
        if (!approvalRequired(deps.settings.get(), container, deps.groupPolicy)) return;
        let approval = findCandidate(containerIdentity(container), candidateOf(target));
        if (passes(approval)) return;
        const origin = source === 'rollback' || source === 'auto-rollback' ? 'api' : source;
        if (!approval || approval.state === 'superseded') approval = await open(container, target, origin, requestedBy);
        else {
          if (lapsed(approval)) approval = await change(approval, { state: 'pending' });
          if (approval.state !== 'rejected') approval = await noteRequester(approval, requestedBy);
        }
        throw refusal(container, target, approval);
      }),

    assess(container, target) {
      if (!approvalRequired(deps.settings.get(), container, deps.groupPolicy)) return undefined;
      const approval = findCandidate(containerIdentity(container), candidateOf(target));
      if (passes(approval)) return undefined;
      return refusal(container, target, approval?.state === 'superseded' ? undefined : approval);
    },

    executed: (container, target, operationId) =>
      serial(async () => {
        const approval = findCandidate(containerIdentity(container), candidateOf(target));
        if (approval?.state !== 'approved') return;
        await change(approval, { state: 'executed', operationId });
      }),

    inventoryApplied: (changes) =>
      serial(async () => {
        for (const { next } of changes) {
          try {
            const pending = observe(deps.containers.get(next.id) ?? next);
            if (pending) await pending;
          } catch (error) {
            logger.warn('approvals could not follow a container', { container: next.name, error: String(error) });
          }
        }
      }),

    openFor(container) {
      const target = updateTargetOf(container);
      const approval = target && findCandidate(containerIdentity(container), candidateOf(target));
      return approval && OPEN_APPROVAL_STATES.includes(approval.state) ? approval : undefined;
    },

    list(filter) {
      return store.all().filter((approval) => {
        if (filter.state !== undefined && approval.state !== filter.state) return false;
        const wanted = filter.container;
        if (wanted === undefined) return true;
        return approval.containerId === wanted || approval.containerName === wanted || approval.identity === wanted;
      });
    },
    get: (id) => store.get(id),
    summary() {
      const counts = Object.fromEntries(APPROVAL_STATES.map((state) => [state, 0])) as Record<ApprovalState, number>;
      const all = store.all();
      for (const approval of all) counts[approval.state] += 1;
      return { total: all.length, ...counts };
    },

    async approve(id, by) {
      const approval = await serial(async () => {
        const current = decidable(store.get(id), id, 'approve');
        assertNotRequester(current, by);
        const container = currentContainer(current);
        // A deferral snoozed the container: approving ends it, or the snooze would hold its next candidate.
        if (current.state === 'deferred') await changeUpdatePolicy(deps, container, { action: 'unsnooze' });
        const approved = await change(current, { state: 'approved', ...decided(by) });
        await audit('update-approved', approved, by, 'approved');
        return approved;
      });
      // Outside the serial line: the update path passes the gate above, which takes its own turn.
      const container = currentContainer(approval);
      const operation = await deps.requestUpdate(container.id);
      return { approval: store.get(id) ?? approval, operation };
    },

    reject: (id, by, comment) =>
      serial(async () => {
        const current = decidable(store.get(id), id, 'reject');
        const container = currentContainer(current);
        // The existing skip: this candidate is neither notified nor applied by itself again.
        await changeUpdatePolicy(deps, container, { action: 'skip-current' });
        const rejected = await change(current, {
          state: 'rejected',
          ...decided(by),
          ...(comment !== undefined && { comment }),
        });
        await audit('update-rejected', rejected, by, comment === undefined ? 'rejected' : `rejected (${comment})`);
        return rejected;
      }),

    defer: (id, by, deferBy, comment) =>
      serial(async () => {
        const current = decidable(store.get(id), id, 'defer');
        const container = currentContainer(current);
        const until = toIsoString(deferEnd(deferBy));
        // The existing snooze: no notification and no automatic update until then.
        await changeUpdatePolicy(deps, container, { action: 'snooze', snoozeUntil: until });
        const deferred = await change(current, {
          state: 'deferred',
          deferredUntil: until,
          ...decided(by),
          ...(comment !== undefined && { comment }),
        });
        await audit('update-deferred', deferred, by, `deferred until ${until}`);
        return deferred;
      }),
  };
}
