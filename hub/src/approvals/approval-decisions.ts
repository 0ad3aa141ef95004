import type { Approval, ApprovalState, Decider } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import { SNOOZE_MAX_DAYS } from '../../../shared/schemas/update-policy';
import { DAY_MS, parseTimestamp, toIsoString } from '../../../shared/update/timestamp';
import { containerIdentity } from '../../../shared/update/update-clock';
import type { UpdateOperation } from '../../../shared/update-engine';
import type { AuditStore } from '../store/audit-store';
import { changeUpdatePolicy, type UpdatePolicyChangeDeps } from '../updates/update-policy-change';
import { updateTargetOf } from '../updates/update-target';
import { type ApprovalRecords, candidateOf } from './approval-records';

/** How long a deferral lasts: an instant, or hours from now. */
export type DeferBy = { until: string; hours?: undefined } | { hours: number; until?: undefined };

/**
 * Why a decision was not taken (docs/approvals.md "Deciding"). Answered as values;
 * `routes/approval-routes.ts` turns each into its HTTP answer.
 */
export type DecisionRefusal =
  | { reason: 'unknown-approval'; message: string }
  | { reason: 'approval-decided'; message: string; state: ApprovalState }
  | { reason: 'candidate-changed'; message: string }
  | { reason: 'separation-of-duties'; message: string }
  | { reason: 'defer-not-in-future' | 'defer-too-far'; message: string };

/** A decision taken (with what it answers), or why not. */
export type Decision<T> = ({ ok: true } & T) | { ok: false; refusal: DecisionRefusal };

const refused = (refusal: DecisionRefusal) => ({ ok: false, refusal }) as const;

/** The states an approval may be decided from, per decision. */
const DECIDABLE: Readonly<Record<'approve' | 'reject' | 'defer', readonly ApprovalState[]>> = {
  approve: ['pending', 'deferred'],
  reject: ['pending', 'deferred', 'approved'],
  defer: ['pending', 'deferred'],
};
const HOUR_MS = 3_600_000;

/** The approval, when it exists and may take this decision in its state. */
export function openToDecision(
  approval: Approval | undefined,
  id: string,
  decision: keyof typeof DECIDABLE,
): { ok: true; approval: Approval } | { ok: false; refusal: DecisionRefusal } {
  if (!approval) return refused({ reason: 'unknown-approval', message: `Unknown approval ${id.slice(0, 80)}` });
  if (DECIDABLE[decision].includes(approval.state)) return { ok: true, approval };
  return refused({
    reason: 'approval-decided',
    message: `The approval is ${approval.state}; it cannot be ${decision}d now`,
    state: approval.state,
  });
}

/** When a deferral ends: in the future, and at most SNOOZE_MAX_DAYS away. */
export function deferEnd(
  now: number,
  deferBy: DeferBy,
): { ok: true; until: number } | { ok: false; refusal: DecisionRefusal } {
  const until = deferBy.hours !== undefined ? now + deferBy.hours * HOUR_MS : parseTimestamp(deferBy.until);
  if (until === undefined || until <= now)
    return refused({ reason: 'defer-not-in-future', message: 'until must lie in the future' });
  if (until > now + SNOOZE_MAX_DAYS * DAY_MS)
    return refused({ reason: 'defer-too-far', message: `A deferral lasts at most ${SNOOZE_MAX_DAYS} days` });
  return { ok: true, until };
}

export interface ApprovalDecisionsDeps extends UpdatePolicyChangeDeps {
  audit: Pick<AuditStore, 'append'>;
  containers: UpdatePolicyChangeDeps['containers'] & {
    all(): Container[];
    get(id: string): Container | undefined;
  };
  /** Runs an approved update through the normal update path (bound once the update service exists). */
  requestUpdate: (containerId: string) => Promise<UpdateOperation>;
  /** DD_APPROVALS_SEPARATE: who requested an update cannot approve it; undefined: off. */
  separateDuties?: { partyOf: (actor: Decider) => string } | undefined;
}

/**
 * Approve, reject and defer (docs/approvals.md): each takes its turn in the approvals' serial
 * line, changes the container's update policy where it must (a skip, a snooze, the snooze ended),
 * and is audited; an approval then runs its update.
 */
export function createApprovalDecisions(
  deps: ApprovalDecisionsDeps,
  records: ApprovalRecords,
  serial: <T>(work: () => Promise<T>) => Promise<T>,
) {
  const { store } = records;

  function containerOf(approval: Approval): Container | undefined {
    const byId = deps.containers.get(approval.containerId);
    if (byId && containerIdentity(byId) === approval.identity) return byId;
    return deps.containers.all().find((container) => containerIdentity(container) === approval.identity);
  }

  /** The container of an approval whose candidate is still the one pending. */
  function currentContainer(approval: Approval): { container: Container } | { refusal: DecisionRefusal } {
    const container = containerOf(approval);
    const target = container && updateTargetOf(container);
    if (container && target && candidateOf(target) === candidateOf(approval)) return { container };
    return {
      refusal: {
        reason: 'candidate-changed',
        message: `${approval.containerName} no longer has ${approval.toVersion} pending`,
      },
    };
  }

  /** Whether the decider (or the user behind the key) is one of those who requested the update. */
  function isRequester(approval: Approval, by: Decider): boolean {
    const separate = deps.separateDuties;
    if (!separate) return false;
    const party = separate.partyOf(by);
    return (approval.requestedBy ?? []).some((actor) => separate.partyOf(actor) === party);
  }

  /** The approval and its container, when this decision may be taken now. */
  function decidable(id: string, decision: keyof typeof DECIDABLE, by: Decider) {
    const open = openToDecision(store.get(id), id, decision);
    if (!open.ok) return open;
    const { approval } = open;
    if (decision === 'approve' && isRequester(approval, by))
      return refused({
        reason: 'separation-of-duties',
        message: 'Who requested this update cannot approve it (DD_APPROVALS_SEPARATE)',
      });
    const current = currentContainer(approval);
    return 'refusal' in current ? refused(current.refusal) : { ok: true as const, approval, ...current };
  }

  const decided = (by: Decider) => ({ decidedBy: by, decidedAt: records.isoNow() });

  async function audit(
    action: 'update-approved' | 'update-rejected' | 'update-deferred',
    approval: Approval,
    by: Decider,
    details: string,
  ): Promise<void> {
    const who = by.kind === 'anonymous' ? 'an anonymous caller' : `${by.kind} ${by.name}`;
    await deps.audit.append({
      action,
      containerName: approval.containerName,
      containerImage: approval.targetImage,
      fromVersion: approval.fromVersion,
      toVersion: approval.toVersion,
      status: approval.state,
      details: `${details} by ${who}`.slice(0, 500),
    });
  }

  return {
    async approve(id: string, by: Decider): Promise<Decision<{ approval: Approval; operation: UpdateOperation }>> {
      const taken = await serial(async () => {
        const current = decidable(id, 'approve', by);
        if (!current.ok) return current;
        // A deferral snoozed the container: approving ends it, or the snooze would hold its next candidate.
        if (current.approval.state === 'deferred')
          await changeUpdatePolicy(deps, current.container, { action: 'unsnooze' });
        const approved = await records.change(current.approval, { state: 'approved', ...decided(by) });
        await audit('update-approved', approved, by, 'approved');
        return { ok: true as const, approval: approved };
      });
      if (!taken.ok) return taken;
      // Outside the serial line: the update path passes the gate above, which takes its own turn.
      const current = currentContainer(taken.approval);
      if ('refusal' in current) return refused(current.refusal);
      const operation = await deps.requestUpdate(current.container.id);
      return { ok: true, approval: store.get(id) ?? taken.approval, operation };
    },

    reject: (id: string, by: Decider, comment?: string): Promise<Decision<{ approval: Approval }>> =>
      serial(async () => {
        const current = decidable(id, 'reject', by);
        if (!current.ok) return current;
        // The existing skip: this candidate is neither notified nor applied by itself again.
        await changeUpdatePolicy(deps, current.container, { action: 'skip-current' });
        const rejected = await records.change(current.approval, {
          state: 'rejected',
          ...decided(by),
          ...(comment !== undefined && { comment }),
        });
        await audit('update-rejected', rejected, by, comment === undefined ? 'rejected' : `rejected (${comment})`);
        return { ok: true, approval: rejected };
      }),

    defer: (id: string, by: Decider, deferBy: DeferBy, comment?: string): Promise<Decision<{ approval: Approval }>> =>
      serial(async () => {
        const current = decidable(id, 'defer', by);
        if (!current.ok) return current;
        const end = deferEnd(deps.now(), deferBy);
        if (!end.ok) return end;
        const until = toIsoString(end.until);
        // The existing snooze: no notification and no automatic update until then.
        await changeUpdatePolicy(deps, current.container, { action: 'snooze', snoozeUntil: until });
        const deferred = await records.change(current.approval, {
          state: 'deferred',
          deferredUntil: until,
          ...decided(by),
          ...(comment !== undefined && { comment }),
        });
        await audit('update-deferred', deferred, by, `deferred until ${until}`);
        return { ok: true, approval: deferred };
      }),
  };
}
