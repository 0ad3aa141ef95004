import * as v from 'valibot';

/**
 * States of an update approval (docs/approvals.md): `pending` waits for a decision; `approved` lets the
 * next update of that candidate run, which makes it `executed`; `rejected` skipped the candidate;
 * `deferred` snoozed it until `deferredUntil`; `superseded` a newer candidate replaced it.
 */
export const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'deferred', 'superseded', 'executed'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** States that still wait for a decision: a newer candidate supersedes them. */
export const OPEN_APPROVAL_STATES: readonly ApprovalState[] = ['pending', 'deferred', 'approved'];

/** What made the approval: a detected update, or a refused update request (its source). */
export const APPROVAL_ORIGINS = ['update-available', 'api', 'webhook', 'mqtt', 'auto'] as const;

/** Who decided (or requested): a signed-in user, an API key, or anyone (anonymous mode). */
export const DeciderSchema = v.object({
  kind: v.picklist(['user', 'api-key', 'anonymous']),
  /** The username, or the key's id; absent for anonymous. */
  name: v.optional(v.string()),
});
export type Decider = v.InferOutput<typeof DeciderSchema>;

/** One approval: one per container identity and candidate (target image and version). */
export const ApprovalSchema = v.object({
  id: v.string(),
  /** `agent::watcher::name`: outlives the container id, as updates re-create containers. */
  identity: v.string(),
  containerId: v.string(),
  containerName: v.string(),
  watcher: v.string(),
  agent: v.optional(v.string()),
  /** The reference the update would pull and run. */
  targetImage: v.string(),
  fromVersion: v.string(),
  toVersion: v.string(),
  /** A new tag, or a new digest under the same tag. */
  updateKind: v.picklist(['tag', 'digest']),
  state: v.picklist(APPROVAL_STATES),
  origin: v.picklist(APPROVAL_ORIGINS),
  createdAt: v.string(),
  updatedAt: v.string(),
  /**
   * Who asked for this update through the API while it waited for this approval (docs/approvals.md
   * "Separation of duties"): none of them may approve it while DD_APPROVALS_SEPARATE is on.
   */
  requestedBy: v.optional(v.array(DeciderSchema)),
  decidedBy: v.optional(DeciderSchema),
  decidedAt: v.optional(v.string()),
  /** Deferred: the candidate is snoozed until then (ISO 8601). */
  deferredUntil: v.optional(v.string()),
  /** Why it was rejected or deferred, as the caller gave it. */
  comment: v.optional(v.string()),
  /** The update operation that ran it (executed). */
  operationId: v.optional(v.string()),
  /** The approval of the newer candidate (superseded). */
  supersededBy: v.optional(v.string()),
});
export type Approval = v.InferOutput<typeof ApprovalSchema>;

/** `dd.update.approval`: `required` or `none`; anything else leaves it to the settings. */
export const APPROVAL_LABEL = 'dd.update.approval';
