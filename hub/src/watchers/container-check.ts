import { lookupReference } from '../../../shared/containers/container-record';
import { isoTime } from '../../../shared/iso-time';
import type { Container } from '../../../shared/schemas/container';
import type { UpdatePolicy } from '../../../shared/schemas/update-policy';
import { type CompiledTagPolicy, compileTagPolicy, NO_TAG_POLICY, TagPolicyError } from '../../../shared/tags';
import { containerIdentity } from '../../../shared/update/update-clock';
import { checkImage, type ImageCheckInput, type ImageCheckResult, prefetchImage } from '../checks/check-image';
import { evaluateUpdate, type UpdateEvaluation, type UpdateEvaluationInput } from '../checks/evaluate-update';
import type { FleetLookups } from '../checks/fleet-lookups';
import type { ContainerStore, IdentityState } from '../store/container-store';
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

/** How many times one check follows a policy that keeps changing under it before it stores what it has. */
const MAX_POLICY_CHANGES = 3;

type CheckedEvaluation = Extract<UpdateEvaluation, { status: 'checked' }>;

/** Evaluations by check answer (one per reference and cycle), then by the time and the rest of their input. */
const evaluations = new WeakMap<ImageCheckResult, Map<number, Map<string, UpdateEvaluation>>>();

/**
 * evaluateUpdate is a pure function of its input: the containers of one reference whose clocks,
 * gates and policies are alike (usually all of them) share one evaluation per cycle. `key` names
 * everything in the input but the check and the time.
 */
function evaluateOnce(input: UpdateEvaluationInput, key: string): UpdateEvaluation {
  let byTime = evaluations.get(input.check);
  if (!byTime) {
    byTime = new Map();
    evaluations.set(input.check, byTime);
  }
  let byInput = byTime.get(input.now);
  if (!byInput) {
    byInput = new Map();
    byTime.set(input.now, byInput);
  }
  let evaluation = byInput.get(key);
  if (!evaluation) {
    evaluation = evaluateUpdate(input);
    byInput.set(key, evaluation);
  }
  return evaluation;
}

/** What a check derives from a record's image, name and labels alone: the same for every cycle it is checked in. */
interface PreparedCheck {
  tagPolicy: CompiledTagPolicy;
  identity: string;
  /** The image check's question but its policy and skips, and the same as JSON. */
  question: Omit<ImageCheckInput, 'tagPolicy' | 'skipTags'>;
  questionKey: string;
  /** The evaluation's inputs that come from the record, as JSON. */
  recordInputs: string;
  /** The policies and state last checked with, and what they gave: unchanged, they give it again. */
  inputs?: CheckInputs;
}

interface CheckInputs {
  labelPolicy: UpdatePolicy;
  state: IdentityState;
  thresholdDays: number;
  policy: UpdatePolicy;
  skipTags: readonly string[];
  checkKey: string;
  evaluationKey: string;
}

/** The label policy with the identity's state (API policy, clock, gate), and the keys they give. */
function inputsOf(ready: PreparedCheck, labelPolicy: UpdatePolicy, state: IdentityState, thresholdDays: number) {
  const last = ready.inputs;
  if (last && last.labelPolicy === labelPolicy && last.state === state && last.thresholdDays === thresholdDays)
    return last;
  const policy = effectivePolicy(labelPolicy, state.policy ?? {});
  const skipTags = policy.skipTags ?? [];
  ready.inputs = {
    labelPolicy,
    state,
    thresholdDays,
    policy,
    skipTags,
    checkKey: `${ready.questionKey}${JSON.stringify(skipTags)}`,
    evaluationKey: `${ready.recordInputs}${JSON.stringify([policy, state.clock, state.gate, thresholdDays])}`,
  };
  return ready.inputs;
}

/** What a check knows of a record: one entry per record, one WeakMap for both parts. */
interface KnownRecord {
  /**
   * Kept with each record a check returns (and the record it was given): a warm cycle hands the
   * stored record back, and a thousand containers' references are not parsed nor their questions
   * written out again (issue 18).
   */
  ready: PreparedCheck | { kind: string; message: string };
  /**
   * On a record a check returned: the identity state it agrees with (the one its check ended on,
   * its own clock and gate written) and the label policy it was checked with. A record held while
   * the rest of its cycle is checked and stored is out of date once an API call changed that state.
   */
  settled?: { identity: string; state: IdentityState; labelPolicy: UpdatePolicy };
}

const known = new WeakMap<Container, KnownRecord>();

function prepare(container: Container, policies: TagPolicyCache): PreparedCheck | { kind: string; message: string } {
  const ref = lookupReference(container);
  if (!ref || container.image.tag.value === '')
    return { kind: 'unsupported-reference', message: 'the image has no repository and tag to look up' };
  const tagPolicy = policies.get(container);
  if (tagPolicy instanceof TagPolicyError) return { kind: 'label', message: tagPolicy.message };
  const question: PreparedCheck['question'] = {
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
  };
  return {
    tagPolicy,
    identity: containerIdentity({ agent: container.agent, watcher: container.watcher, name: container.name }),
    question,
    questionKey: JSON.stringify(question),
    recordInputs: JSON.stringify([container.image.tag.value, container.image.digest.repo, container.linkTemplate]),
  };
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
  const at = isoTime(context.now);
  let ready = known.get(container)?.ready;
  if (!ready) {
    ready = prepare(container, context.policies);
    known.set(container, { ready });
  }
  if ('kind' in ready) return { ...container, error: { phase: 'check', kind: ready.kind, message: ready.message, at } };
  const { tagPolicy, identity } = ready;

  let state = context.store.identityState(identity);
  let inputs = inputsOf(ready, labelPolicy, state, context.thresholdDays);
  let check: ImageCheckResult;
  for (let asked = 1; ; asked++) {
    const { skipTags } = inputs;
    // Every container of one image and reference asks the same question: answered once per cycle.
    check = await context.lookups.imageCheck(tagPolicy, inputs.checkKey, () =>
      checkImage({ ...ready.question, tagPolicy, skipTags: [...skipTags] }, context.lookups),
    );
    // A policy changed while the registry was asked (PATCH update-policy) is checked with, not
    // stored over with the one read before (a new skip asks the registry again, at most
    // MAX_POLICY_CHANGES times in all).
    const latest = context.store.identityState(identity);
    if (latest === state || asked === MAX_POLICY_CHANGES) break;
    state = latest;
    inputs = inputsOf(ready, labelPolicy, state, context.thresholdDays);
  }
  const { policy, evaluationKey } = inputs;
  const evaluation = evaluateOnce(
    {
      check,
      localTag: container.image.tag.value,
      localDigest: container.image.digest.repo,
      policy,
      previousClock: state.clock,
      previousGate: state.gate,
      linkTemplate: container.linkTemplate,
      thresholdDays: context.thresholdDays,
      now: context.now,
    },
    evaluationKey,
  );
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
  // asked (PATCH update-policy) is kept, not put back to the one read at the start. Written only
  // when the clock or gate moved: an unchanged fleet writes no identity state.
  const current = context.store.identityState(identity);
  if (!sameJson(current.clock, evaluation.clock) || !sameJson(current.gate, evaluation.gate)) {
    await context.store.setIdentityState(identity, {
      ...current,
      ...(evaluation.clock ? { clock: evaluation.clock } : { clock: undefined }),
      ...(evaluation.gate ? { gate: evaluation.gate } : { gate: undefined }),
    });
  }
  const checked = sameOutcome(container, policy, evaluation)
    ? { ...container, checkedAt: at }
    : withOutcome(container, policy, evaluation, at);
  // Only update fields changed: what the record's image, name and labels gave still holds.
  known.set(checked, { ready, settled: { identity, state: context.store.identityState(identity), labelPolicy } });
  return checked;
}

/**
 * The records among `records` whose identity state (API policy, clock, gate) changed after their
 * check ended, checked again now, by the record they replace. A cycle holds its first records
 * while it waits for the registry's last answers and while it stores them all; a PATCH of the
 * update policy landing then would otherwise be stored over, and acted on (notified, auto-updated),
 * until the next cycle (issue 18). The registry answers of the cycle are asked again only where
 * the new policy changes the question (a new skip).
 */
export async function recheckMoved(
  records: readonly Container[],
  context: ContainerCheckContext,
): Promise<Map<Container, Container>> {
  const rechecked = new Map<Container, Container>();
  const moved: Promise<void>[] = [];
  // A plain loop: a warm cycle passes a thousand records here and usually none has moved.
  for (const record of records) {
    const last = known.get(record)?.settled;
    if (!last || context.store.identityState(last.identity) === last.state) continue;
    // A check that throws (a bug, not a registry answer) leaves the record as it was checked.
    moved.push(
      checkContainer(record, last.labelPolicy, context).then(
        (next) => void rechecked.set(record, next),
        () => undefined,
      ),
    );
  }
  await Promise.all(moved);
  return rechecked;
}

/**
 * Whether the record already says what this evaluation says (every field withOutcome sets, so the
 * two change together): then only its check time moves, and
 * it keeps its own objects (a warm cycle's thousand unchanged records are copied once, and found
 * unchanged at a glance when stored).
 */
function sameOutcome(container: Container, policy: UpdatePolicy, evaluation: CheckedEvaluation): boolean {
  return (
    container.error === undefined &&
    container.updateAvailable === evaluation.updateAvailable &&
    container.updateMaturityLevel === (evaluation.updateMaturityLevel || undefined) &&
    sameJson(container.updateKind, evaluation.updateKind) &&
    sameJson(container.result, evaluation.result || undefined) &&
    sameJson(container.blockers, evaluation.blockers.length > 0 ? evaluation.blockers : undefined) &&
    sameJson(container.updatePolicy, policy)
  );
}

function withOutcome(container: Container, policy: UpdatePolicy, evaluation: CheckedEvaluation, at: string): Container {
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
