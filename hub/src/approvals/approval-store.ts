import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import { type Approval, ApprovalSchema, OPEN_APPROVAL_STATES } from '../../../shared/schemas/approval';
import { readValidated } from '../store/validated-storage';

const PREFIX = 'approvals';
const keyOf = (id: string) => `${PREFIX}:${id}`;
/** Decided approvals kept for the list and the audit of who decided; the oldest go first. */
export const MAX_CLOSED_APPROVALS = 2_000;

/** Newest first: creation time, then id. */
function newestFirst(a: Approval, b: Approval): number {
  return a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;
}

/** Approvals in the hub's storage, one record each, mirrored in memory (reads cost nothing). */
export interface ApprovalStore {
  load(): Promise<void>;
  get(id: string): Approval | undefined;
  /** Newest first. */
  all(): Approval[];
  /** One container identity's approvals, newest first: a watch asks this for every container it checked. */
  ofIdentity(identity: string): Approval[];
  /** Writes one record; callers serialise their read-modify-writes. */
  save(approval: Approval): Promise<void>;
}

export function createApprovalStore(storage: Storage, logger: Logger): ApprovalStore {
  const approvals = new Map<string, Approval>();
  /** Identity → its approvals' ids, so a snapshot of 10,000 containers does not scan every approval each. */
  const byIdentity = new Map<string, Set<string>>();
  const index = (approval: Approval) => {
    const ids = byIdentity.get(approval.identity) ?? new Set<string>();
    ids.add(approval.id);
    byIdentity.set(approval.identity, ids);
  };
  const forget = (approval: Approval) => {
    const ids = byIdentity.get(approval.identity);
    ids?.delete(approval.id);
    if (ids?.size === 0) byIdentity.delete(approval.identity);
  };

  async function trim(): Promise<void> {
    const closed = [...approvals.values()]
      .filter((approval) => !OPEN_APPROVAL_STATES.includes(approval.state))
      .sort(newestFirst);
    for (const old of closed.slice(MAX_CLOSED_APPROVALS)) {
      await storage.removeItem(keyOf(old.id));
      approvals.delete(old.id);
      forget(old);
    }
  }

  return {
    async load() {
      approvals.clear();
      byIdentity.clear();
      const keys = await storage.getKeys(PREFIX);
      const loaded = await Promise.all(keys.map((key) => readValidated(storage, key, ApprovalSchema, logger)));
      for (const approval of loaded) {
        if (!approval) continue;
        approvals.set(approval.id, approval);
        index(approval);
      }
    },
    get: (id) => approvals.get(id),
    all: () => [...approvals.values()].sort(newestFirst),
    ofIdentity: (identity) =>
      [...(byIdentity.get(identity) ?? [])]
        .map((id) => approvals.get(id))
        .filter((approval): approval is Approval => approval !== undefined)
        .sort(newestFirst),
    async save(approval) {
      await storage.setItem(keyOf(approval.id), approval);
      approvals.set(approval.id, approval);
      index(approval);
      if (!OPEN_APPROVAL_STATES.includes(approval.state)) await trim();
    },
  };
}
