import { lookupReference } from '../../../shared/containers/container-record';
import type { Container } from '../../../shared/schemas/container';
import type { UpdatePolicy } from '../../../shared/schemas/update-policy';
import { type CompiledTagPolicy, compileTagPolicy, NO_TAG_POLICY, TagPolicyError } from '../../../shared/tags';
import { containerIdentity } from '../../../shared/update/update-clock';
import { checkImage, type ImageCheckInput, type ImageCheckResult, prefetchImage } from '../checks/check-image';
import { evaluateUpdate, type UpdateEvaluation, type UpdateEvaluationInput } from '../checks/evaluate-update';
import type { FleetLookups } from '../checks/fleet-lookups';
import type { ContainerStore } from '../store/container-store';
import { sameJson } from './same-json';

/** Compiled tag policies by their text: containers with the same labels share one, and so share per-cycle work. */
export class TagPolicyCache {
  private readonly compiled = new Map<string, CompiledTagPolicy | TagPolicyError>();

  get(container: Pick<Container, 'includeTags' | 'excludeTags' | 'transformTags'>): CompiledTagPolicy | TagPolicyError {
    if (!container.includeTags && !container.excludeTags && !container.transformTags) return NO_TAG_POLICY;
    const key = JSON.stringify([container.includeTags, container.excludeTags, container.transformTags]);
    let policy = this.compiled.get(key);
    if (!policy) {
      try {
        policy = compileTagPolicy({
          includeTags: container.includeTags,
          excludeTags: container.excludeTags,
          transformTags: container.transformTags,
        });
      } catch (error) {
        if (!(error instanceof TagPolicyError)) throw error;
        policy = error;
      }
      if (this.compiled.size > 1000) this.compiled.clear();
      this.compiled.set(key, policy);
    }
    return policy;
  }
}

/**
 * Starts the registry requests a check of this (last known) record would begin with, without
 * waiting (prefetchImage): a watch cycle's registry answers then come while Docker lists.
 */
export function prefetchContainer(container: Container, context: Pick<ContainerCheckContext, 'lookups' | 'policies'>) {
  const ref = lookupReference(container);
  const tagPolicy = context.policies.get(container);
  if (!ref || container.image.tag.value === '' || tagPolicy instanceof TagPolicyError) return;
  prefetchImage(
    {
      registry: ref.registry,
      repository: ref.repository,
      tag: ref.tag ?? container.image.tag.value,
      watchDigest: container.image.digest.watch,
      tagPolicy,
    },
    context.lookups,
  );
}

/** Label policy and API policy together; the API's fields win where both are set. */
export function effectivePolicy(labelPolicy: UpdatePolicy, apiPolicy: UpdatePolicy): UpdatePolicy {
  return { ...labelPolicy, ...apiPolicy };
}

/** Evaluations by check answer (one per reference and cycle), then by the rest of their input. */
const evaluations = new WeakMap<ImageCheckResult, Map<string, UpdateEvaluation>>();

/**
 * evaluateUpdate is a pure function of its input: the containers of one reference whose clocks,
 * gates and policies are alike (usually all of them) share one evaluation per cycle.
 */
function evaluateOnce(input: UpdateEvaluationInput): UpdateEvaluation {
  const { check, ...rest } = input;
  let byInput = evaluations.get(check);
  if (!byInput) {
    byInput = new Map();
    evaluations.set(check, byInput);
  }
  const key = JSON.stringify(rest);
  let evaluation = byInput.get(key);
  if (!evaluation) {
    evaluation = evaluateUpdate(input);
    byInput.set(key, evaluation);
  }
  return evaluation;
}

export interface ContainerCheckContext {
  lookups: FleetLookups;
  store: ContainerStore;
  policies: TagPolicyCache;
  thresholdDays: number;
  now: number;
}

/**
 * Checks one container against its registry and returns the record with its update fields set.
 * A failure keeps the last-known fields and records the error; the maturity clock is untouched.
 */
export async function checkContainer(
  container: Container,
  labelPolicy: UpdatePolicy,
  context: ContainerCheckContext,
): Promise<Container> {
  const at = new Date(context.now).toISOString();
  const fail = (kind: string, message: string): Container => ({
    ...container,
    error: { phase: 'check', kind, message, at },
  });
  const ref = lookupReference(container);
  if (!ref || container.image.tag.value === '')
    return fail('unsupported-reference', 'the image has no repository and tag to look up');
  const tagPolicy = context.policies.get(container);
  if (tagPolicy instanceof TagPolicyError) return fail('label', tagPolicy.message);

  const identity = containerIdentity({ agent: container.agent, watcher: container.watcher, name: container.name });
  const state = context.store.identityState(identity);
  const policy = effectivePolicy(labelPolicy, state.policy ?? {});
  const input: ImageCheckInput = {
    registry: ref.registry,
    repository: ref.repository,
    tag: ref.tag ?? container.image.tag.value,
    platform: {
      os: container.image.os,
      architecture: container.image.architecture,
      ...(container.image.variant && { variant: container.image.variant }),
    },
    localDigests: container.image.digest.repo ? [container.image.digest.repo] : [],
    localImageId: container.image.id,
    watchDigest: container.image.digest.watch,
    tagPolicy,
    skipTags: policy.skipTags ?? [],
  };
  // Every container of one image and reference asks the same question: answered once per cycle.
  const { tagPolicy: _policy, ...question } = input;
  const check = await context.lookups.imageCheck(tagPolicy, JSON.stringify(question), () =>
    checkImage(input, context.lookups),
  );
  const evaluation = evaluateOnce({
    check,
    localTag: container.image.tag.value,
    localDigest: container.image.digest.repo,
    policy,
    previousClock: state.clock,
    previousGate: state.gate,
    linkTemplate: container.linkTemplate,
    thresholdDays: context.thresholdDays,
    now: context.now,
  });
  if (evaluation.status === 'failed') {
    const first = evaluation.errors[0];
    return {
      ...container,
      error: {
        phase: first?.phase ?? 'check',
        kind: first?.kind ?? 'unknown',
        message: first?.message ?? 'check failed',
        at,
      },
    };
  }
  // The check's clock and gate over the state as it is now: a policy changed while the registry was
  // asked (PATCH update-policy) is kept, not put back to the one read at the start.
  const current = context.store.identityState(identity);
  const nextState = {
    ...current,
    ...(evaluation.clock ? { clock: evaluation.clock } : { clock: undefined }),
    ...(evaluation.gate ? { gate: evaluation.gate } : { gate: undefined }),
  };
  // Written only when the clock or gate moved: an unchanged fleet writes no identity state.
  if (!sameJson(nextState, current)) await context.store.setIdentityState(identity, nextState);
  const { error: _cleared, result: _old, updateMaturityLevel: _level, blockers: _blockers, ...rest } = container;
  return {
    ...rest,
    updatePolicy: policy,
    updateAvailable: evaluation.updateAvailable,
    updateKind: evaluation.updateKind,
    ...(evaluation.result && { result: evaluation.result }),
    ...(evaluation.updateMaturityLevel && { updateMaturityLevel: evaluation.updateMaturityLevel }),
    ...(evaluation.blockers.length > 0 && { blockers: evaluation.blockers }),
    checkedAt: at,
  };
}
