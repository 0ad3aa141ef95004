import type { UpdatePolicy } from '../../../shared/schemas/update-policy';
import { linkVersionFromTag, renderLinkTemplate } from '../../../shared/update/link-template';
import {
  type DisplayMaturityLevel,
  displayMaturityLevel,
  evaluateMaturityGate,
  type MaturityGate,
  maturityCleared,
} from '../../../shared/update/maturity';
import { type UpdateBlocker, updateBlockers } from '../../../shared/update/snooze-skip';
import { advanceUpdateClock, type UpdateClock } from '../../../shared/update/update-clock';
import { buildUpdateKind, pendingUpdateOf, type UpdateKind } from '../../../shared/update/update-kind';
import type { ImageCheckError, ImageCheckResult } from './check-image';

export interface UpdateEvaluationInput {
  check: ImageCheckResult;
  localTag: string;
  /** The digest the container was pulled by, shown as updateKind.localValue for digest updates. */
  localDigest: string | undefined;
  policy: UpdatePolicy;
  /** This identity's clock and gate from the previous check (carried across re-creation). */
  previousClock: UpdateClock | undefined;
  previousGate: MaturityGate | undefined;
  /** The `dd.link.template` label. */
  linkTemplate?: string | undefined;
  /** DD_UI_MATURITY_THRESHOLD_DAYS. */
  thresholdDays: number;
  now: number;
}

/** The container's `result` (http-interface §2.4): the candidate and where it came from. */
export interface UpdateResultFields {
  tag: string;
  digest?: string;
  publishedAt?: string;
  publishedAtTrusted?: boolean;
  link?: string;
}

export type UpdateEvaluation =
  | {
      status: 'checked';
      updateAvailable: boolean;
      updateKind: UpdateKind;
      result?: UpdateResultFields;
      clock: UpdateClock | undefined;
      gate: MaturityGate | undefined;
      /** The gate moved from held to applicable in this check: the maturity-cleared event fires once. */
      maturityCleared: boolean;
      updateMaturityLevel: DisplayMaturityLevel | undefined;
      blockers: UpdateBlocker[];
    }
  /** The registry could not answer: the caller keeps the last-known fields and clock untouched. */
  | { status: 'failed'; errors: ImageCheckError[] };

/**
 * Turns one registry check into what a container record shows and what the policy says of it:
 * updateKind and result (http-interface §2.4), the update clock carried by identity, the maturity gate
 * (http-interface §3.3), the display level (http-interface §3.4) and the blockers. A failed lookup never counts as
 * "nothing pending", or one registry hiccup would restart every maturity clock.
 */
export function evaluateUpdate(input: UpdateEvaluationInput): UpdateEvaluation {
  const { check } = input;
  const decisive = check.errors.filter((error) => error.phase !== 'published');
  if (decisive.length > 0) return { status: 'failed', errors: decisive };

  const candidate = check.candidate;
  const { updateKind, updateAvailable } = buildUpdateKind({
    localTag: input.localTag,
    tagCandidate: candidate,
    ...(check.digestChanged && { digest: { local: input.localDigest ?? 'unknown', remote: check.remoteDigest } }),
  });
  const pending = pendingUpdateOf(updateKind);
  const clock = advanceUpdateClock(input.previousClock, { remoteValue: pending?.remoteValue }, input.now);
  const published =
    updateKind.kind === 'tag'
      ? candidate?.publishedAt
      : updateKind.kind === 'digest'
        ? check.digestPublishedAt
        : undefined;
  const gate = clock
    ? evaluateMaturityGate({
        policy: input.policy,
        updateDetectedAt: clock.updateDetectedAt,
        publishedAt: published?.date,
        publishedAtTrusted: published?.trusted,
        now: input.now,
      })
    : undefined;
  // A new remote value is a new update: the old one never matured, so there is nothing to clear.
  const sameUpdate = input.previousClock !== undefined && input.previousClock.remoteValue === clock?.remoteValue;
  return {
    status: 'checked',
    updateAvailable,
    updateKind,
    ...(pending && { result: resultFields(input, updateKind, published) }),
    clock,
    gate,
    maturityCleared: maturityCleared(sameUpdate ? input.previousGate : undefined, gate),
    updateMaturityLevel: clock
      ? displayMaturityLevel({
          firstSeenAt: clock.firstSeenAt,
          publishedAt: published?.date,
          now: input.now,
          thresholdDays: input.thresholdDays,
          gateHeld: gate?.state === 'held',
        })
      : undefined,
    blockers: updateBlockers({ policy: input.policy, update: pending, gate, now: input.now }),
  };
}

function resultFields(
  input: UpdateEvaluationInput,
  updateKind: UpdateKind,
  published: { date: string; trusted: boolean } | undefined,
): UpdateResultFields {
  const tag = updateKind.kind === 'tag' ? updateKind.remoteValue : input.localTag;
  const digest = updateKind.kind === 'tag' ? input.check.candidate?.digest : input.check.remoteDigest;
  const link = renderLinkTemplate(input.linkTemplate, linkVersionFromTag(tag));
  return {
    tag,
    ...(digest !== undefined && { digest }),
    ...(published && { publishedAt: published.date, publishedAtTrusted: published.trusted }),
    ...(link !== undefined && { link }),
  };
}
