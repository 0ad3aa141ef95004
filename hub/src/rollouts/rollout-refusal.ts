import type { Rollout, RolloutState } from '../../../shared/schemas/rollout';

/**
 * Why the rollouts did not do what was asked (docs/group-policies.md "Staged rollouts"). The
 * planner and the service answer these as values; `routes/rollout-routes.ts` turns each into its
 * HTTP answer (404 for an unknown rollout, 409 with `details.reason` and the fields beside it).
 */
export type RolloutRefusal =
  | { reason: 'unknown-rollout'; message: string }
  | { reason: 'no-candidates'; message: string }
  | { reason: 'candidates-differ'; message: string; candidates: string[] }
  | { reason: 'rollout-active'; message: string; rolloutId: string }
  | { reason: 'rollout-state'; message: string; state: RolloutState };

export type Refused = { ok: false; refusal: RolloutRefusal };

/** What starting or changing a rollout answers: the stored record, or why not. */
export type RolloutResult = { ok: true; rollout: Rollout } | Refused;

export const refused = (refusal: RolloutRefusal): Refused => ({ ok: false, refusal });

export const unknownRollout = (id: string): Refused =>
  refused({ reason: 'unknown-rollout', message: `Unknown rollout ${id.slice(0, 80)}` });
