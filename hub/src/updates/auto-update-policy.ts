import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Container } from '../../../shared/schemas/container';
import type { Settings } from '../../../shared/schemas/settings';
import { TEMPORARY_NAME, type UpdateSource } from '../../../shared/update-engine';
import { HttpError } from '../http/http-error';
import { actionAllowed } from './action-routing';
import { type DockerActionTrigger, triggerCoversWatcher } from './action-triggers';
import { updateTargetOf } from './update-target';

export const ACTION_AUTO_LABEL = 'dd.action.auto';

/** Why an update the policy wants to apply by itself is held back (audited as `auto-update-blocked`). */
export type AutoUpdateBlockReason =
  | 'auto-disabled-by-label'
  | 'no-action-trigger'
  | 'excluded-by-labels'
  | 'skipped'
  | 'snoozed'
  | 'maturity-not-reached'
  | 'previous-auto-update-failed';

export type AutoUpdateDecision =
  /** Nothing to do: no pending update, or the container is not under the auto policy at all. */
  | { kind: 'off' }
  | { kind: 'update'; trigger: DockerActionTrigger }
  | { kind: 'blocked'; reason: AutoUpdateBlockReason; liftableAt?: string | undefined };

export interface AutoUpdateInput {
  mode: Settings['updateMode'];
  container: Container;
  triggers: readonly DockerActionTrigger[];
  /**
   * Whether an earlier automatic update towards this very target ended rolled-back or failed:
   * asked only when the rest of the decision would update (it reads the container's history, and
   * every watch cycle decides for every container with an update).
   */
  failedBefore: () => boolean;
}

/** `dd.action.auto`: true / false, anything else (or absent) leaves the decision to the mode and the trigger. */
export function autoLabel(labels: Readonly<Record<string, string>>): boolean | undefined {
  const value = labels[ACTION_AUTO_LABEL]?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/**
 * The auto-update policy (docs/updates.md, "Automatic updates"), in this order of precedence:
 * 1. `updateMode: notify` turns every automatic update off;
 * 2. the container's `dd.action.auto` label: `false` opts it out, `true` opts it in;
 * 3. without the label, it is updated by itself when `updateMode` is `auto` or an action trigger
 *    that its `dd.action.include/exclude` labels allow has `AUTO=true`.
 * Once wanted, every gate must allow it: an allowed trigger, no skip, snooze or maturity blocker,
 * and no earlier automatic attempt at the same target that failed.
 */
export function autoUpdateDecision(input: AutoUpdateInput): AutoUpdateDecision {
  const { mode, container } = input;
  if (mode === 'notify' || TEMPORARY_NAME.test(container.name) || !updateTargetOf(container)) return { kind: 'off' };
  const candidates = input.triggers.filter((trigger) => triggerCoversWatcher(trigger, container.watcher));
  const labels = actingLabels(container);
  const allowed = candidates.filter((trigger) => actionAllowed(labels, trigger));
  const byTriggerOrMode = mode === 'auto' || allowed.some((trigger) => trigger.auto);
  const label = autoLabel(labels);
  if (label === false) return byTriggerOrMode ? { kind: 'blocked', reason: 'auto-disabled-by-label' } : { kind: 'off' };
  if (label !== true && !byTriggerOrMode) return { kind: 'off' };
  const trigger = allowed.find((candidate) => candidate.auto) ?? allowed[0];
  if (!trigger)
    return { kind: 'blocked', reason: candidates.length === 0 ? 'no-action-trigger' : 'excluded-by-labels' };
  const held = container.blockers?.[0];
  if (held) {
    return {
      kind: 'blocked',
      reason: held.reason as AutoUpdateBlockReason,
      ...(held.liftableAt !== undefined && { liftableAt: held.liftableAt }),
    };
  }
  if (input.failedBefore()) return { kind: 'blocked', reason: 'previous-auto-update-failed' };
  return { kind: 'update', trigger };
}

/**
 * `updateMode: notify` is monitoring only: no update is applied, whoever asks (409
 * `update-mode-notify`). Rollbacks are not updates and stay available.
 */
export function assertUpdateModeAllows(mode: Settings['updateMode'], source: UpdateSource): void {
  if (mode === 'notify' && source !== 'rollback' && source !== 'auto-rollback') {
    throw new HttpError(409, 'The hub is in notify mode (settings updateMode): updates are reported, not applied', {
      reason: 'update-mode-notify',
    });
  }
}
