import { readContainerLabels } from '../../../shared/containers/container-labels';
import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Container } from '../../../shared/schemas/container';
import type { UpdatePolicy, UpdatePolicyAction } from '../../../shared/schemas/update-policy';
import { applyPolicyAction } from '../../../shared/update/apply-policy-action';
import { updateBlockers } from '../../../shared/update/snooze-skip';
import { containerIdentity } from '../../../shared/update/update-clock';
import { pendingUpdateOf } from '../../../shared/update/update-kind';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { ContainerStore } from '../store/container-store';
import { effectivePolicy } from '../watchers/container-check';
import { toPublicContainer } from '../watchers/public-container';

/** What a change of a container's update policy reads and writes. */
export interface UpdatePolicyChangeDeps {
  containers: Pick<ContainerStore, 'put' | 'identityState' | 'setIdentityState'>;
  now: () => number;
  publish: Publish;
}

/**
 * Applies one update-policy action (skip, snooze, maturity…) to the container's identity and shows
 * it on the record at once, as a check would; shared by PATCH update-policy and the approvals'
 * reject (a skip) and defer (a snooze). Throws 400 when the action cannot apply now. The caller audits.
 */
export async function changeUpdatePolicy(
  deps: UpdatePolicyChangeDeps,
  container: Container,
  action: UpdatePolicyAction,
): Promise<Container> {
  const { containers } = deps;
  const identity = containerIdentity({ agent: container.agent, watcher: container.watcher, name: container.name });
  const state = containers.identityState(identity);
  const now = deps.now();
  const pending = pendingUpdateOf(container.updateKind);
  const outcome = applyPolicyAction(state.policy ?? {}, action, { now, currentUpdate: pending });
  if (!outcome.ok) throw new HttpError(400, outcome.error.message, { code: outcome.error.code });
  await containers.setIdentityState(identity, { ...state, policy: outcome.policy });
  // The record shows what a check would: the label policy with the API policy on top.
  const policy = effectivePolicy(readContainerLabels(actingLabels(container)).labelPolicy, outcome.policy);
  const blockers = updateBlockers({ policy, update: pending, gate: state.gate, now });
  const { blockers: _old, ...rest } = container;
  const updated = { ...rest, updatePolicy: policy, ...(blockers.length > 0 && { blockers }) };
  await containers.put(updated);
  deps.publish('dd:container-updated', toPublicContainer(updated));
  return updated;
}

/**
 * Whether a policy change took a tag or digest off the skip lists. A check passes the skipped tags
 * to the registry lookup, so a cycle run while a tag was skipped found no update; taking the skip
 * back cannot show that update again without a new check (the record here only recomputes blockers).
 */
export function skipListsShrank(before: UpdatePolicy | undefined, after: UpdatePolicy): boolean {
  const dropped = (was: readonly string[] | undefined, now: readonly string[] | undefined) =>
    (was ?? []).some((value) => !(now ?? []).includes(value));
  return dropped(before?.skipTags, after.skipTags) || dropped(before?.skipDigests, after.skipDigests);
}
