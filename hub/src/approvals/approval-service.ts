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
import { type UpdateTarget, updateTargetOf } from '../updates/update-target';
import { createApprovalDecisions, type Decision, type DeferBy } from './approval-decisions';
import { approvalRequired, type GroupApprovalPolicy } from './approval-policy';
import { candidateOf, createApprovalRecords } from './approval-records';

export type { DecisionRefusal, DeferBy } from './approval-decisions';

/** What the approvals read and tell, and the update path an approval runs through. */
export interface ApprovalServiceDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  containers: Pick<ContainerStore, 'all' | 'get' | 'put' | 'identityState' | 'setIdentityState'>;
  settings: Pick<SettingsStore, 'get'>;
  publish: Publish;
  /** The group's, else the agent's, policy on approvals (policies/effective-group-policy.ts), between the label and the setting. */
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
  /** Refused (`separation-of-duties`) when `by` requested this update and DD_APPROVALS_SEPARATE is on. */
  approve(id: string, by: Decider): Promise<Decision<{ approval: Approval; operation: UpdateOperation }>>;
  reject(id: string, by: Decider, comment?: string): Promise<Decision<{ approval: Approval }>>;
  defer(id: string, by: Decider, deferBy: DeferBy, comment?: string): Promise<Decision<{ approval: Approval }>>;
}

/** An approved candidate (or one approved and run before: a retry after a rollback) passes. */
const passes = (approval: Approval | undefined) => approval?.state === 'approved' || approval?.state === 'executed';

export function createApprovalService(deps: ApprovalServiceDeps): ApprovalService {
  const logger = deps.logger.child('approvals');
  const records = createApprovalRecords({ ...deps, logger });
  const { store, findCandidate, lapsed, change, outdated, supersede } = records;
  // Every read-modify-write in one line, so two requests never open two approvals for one candidate.
  const serial = createSerialQueue();
  const decisions = createApprovalDecisions(deps, records, serial);
  const required = (container: Container) => approvalRequired(deps.settings.get(), container, deps.groupPolicy);

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
    if (!target || !required(container)) {
      // Nothing pending any more (updated, or the candidate withdrawn): open approvals are moot.
      return !target && outdated(identity, undefined).length > 0 ? supersede(identity, undefined) : undefined;
    }
    const candidate = candidateOf(target);
    const existing = findCandidate(identity, candidate);
    if (!existing || existing.state === 'superseded') return records.open(container, target, 'update-available');
    if (outdated(identity, candidate).length === 0 && !lapsed(existing)) return undefined;
    return (async () => {
      await supersede(identity, candidate);
      if (lapsed(existing)) await change(existing, { state: 'pending' });
    })();
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

  return {
    load: () => store.load(),
    required,

    admit: (container, target, source, requestedBy) =>
      serial(async () => {
        if (!required(container)) return;
        let approval = findCandidate(containerIdentity(container), candidateOf(target));
        if (passes(approval)) return;
        const origin = source === 'rollback' || source === 'auto-rollback' ? 'api' : source;
        if (!approval || approval.state === 'superseded')
          approval = await records.open(container, target, origin, requestedBy);
        else {
          if (lapsed(approval)) approval = await change(approval, { state: 'pending' });
          if (approval.state !== 'rejected') approval = await records.noteRequester(approval, requestedBy);
        }
        throw refusal(container, target, approval);
      }),

    assess(container, target) {
      if (!required(container)) return undefined;
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

    approve: decisions.approve,
    reject: decisions.reject,
    defer: decisions.defer,
  };
}
