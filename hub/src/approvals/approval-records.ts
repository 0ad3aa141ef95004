import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import { type Approval, type Decider, OPEN_APPROVAL_STATES } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import { parseTimestamp } from '../../../shared/update/timestamp';
import { containerIdentity } from '../../../shared/update/update-clock';
import type { Publish } from '../events/event-bus';
import type { UpdateTarget } from '../updates/update-target';
import { createApprovalStore } from './approval-store';

export const candidateOf = (target: Pick<UpdateTarget, 'targetImage' | 'toVersion'>) =>
  `${target.targetImage}@${target.toVersion}`;
/** Requesters kept per approval: enough for any team, bounded against a script that retries with many keys. */
const MAX_REQUESTERS = 50;
const sameActor = (a: Decider, b: Decider) => a.kind === b.kind && a.name === b.name;

export interface ApprovalRecordsDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  publish: Publish;
}

/**
 * The stored approvals and the changes every part of the approvals makes to them: opened for a
 * candidate, superseded by a newer one, changed and announced (dd:approval-requested / -updated).
 */
export function createApprovalRecords(deps: ApprovalRecordsDeps) {
  const store = createApprovalStore(deps.storage, deps.logger.child('store'));
  const isoNow = () => new Date(deps.now()).toISOString();

  async function save(approval: Approval, event: 'dd:approval-requested' | 'dd:approval-updated'): Promise<Approval> {
    await store.save(approval);
    deps.publish(event, approval);
    return approval;
  }

  async function change(approval: Approval, fields: Partial<Approval>): Promise<Approval> {
    return save({ ...approval, ...fields, updatedAt: isoNow() }, 'dd:approval-updated');
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

  return {
    store,
    isoNow,
    change,
    outdated,
    supersede,

    /** The newest approval of this identity and candidate. */
    findCandidate(identity: string, candidate: string): Approval | undefined {
      return store.ofIdentity(identity).find((approval) => candidateOf(approval) === candidate);
    },

    /** A deferral whose time has passed waits for a decision again. */
    lapsed: (approval: Approval) =>
      approval.state === 'deferred' && (parseTimestamp(approval.deferredUntil) ?? 0) <= deps.now(),

    /** Opens a pending approval of the container's candidate; the identity's older open ones are superseded. */
    async open(
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
      deps.logger.info('an update waits for approval', {
        container: container.name,
        target: candidateOf(target),
        origin,
      });
      return save(approval, 'dd:approval-requested');
    },

    /** Remembers who asked for the update while it waits: they may not approve it (separation of duties). */
    async noteRequester(approval: Approval, requestedBy: Decider | undefined): Promise<Approval> {
      const known = approval.requestedBy ?? [];
      if (!requestedBy || known.length >= MAX_REQUESTERS || known.some((actor) => sameActor(actor, requestedBy)))
        return approval;
      return change(approval, { requestedBy: [...known, requestedBy] });
    },
  };
}

export type ApprovalRecords = ReturnType<typeof createApprovalRecords>;
