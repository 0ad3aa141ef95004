import * as v from 'valibot';

export const SEMVER_DIFFS = ['major', 'minor', 'patch', 'prerelease'] as const;
export type SemverDiff = (typeof SEMVER_DIFFS)[number];

/**
 * `updateKind` of a container (http-interface §2.4): what changed between the running image and the remote one.
 * `unknown` carries no values: there is no pending update to describe.
 */
export const UpdateKindSchema = v.variant('kind', [
  v.object({
    kind: v.literal('tag'),
    localValue: v.string(),
    remoteValue: v.string(),
    semverDiff: v.optional(v.picklist(SEMVER_DIFFS)),
  }),
  v.object({ kind: v.literal('digest'), localValue: v.string(), remoteValue: v.string() }),
  v.object({ kind: v.literal('unknown') }),
]);
export type UpdateKind = v.InferOutput<typeof UpdateKindSchema>;

/** `unknown`, one frozen object for every record without a pending update (most of a fleet's; issue 30 item 3). */
export const UNKNOWN_UPDATE_KIND: UpdateKind = Object.freeze({ kind: 'unknown' });

/** A detected update in the form the policy logic needs: which list a skip goes to, and the value skipped. */
export type PendingUpdate = { kind: 'tag' | 'digest'; remoteValue: string };

export type UpdateKindInput = {
  /** The tag the container runs. */
  localTag: string;
  /** The best newer tag of the same family, from the tag logic; absent when there is none. */
  tagCandidate?: { tag: string; semverDiff?: SemverDiff | undefined } | undefined;
  /** Only when the digest is watched; a side left undefined (lookup failed, no repo digest) means "cannot compare". */
  digest?: { local?: string | undefined; remote?: string | undefined } | undefined;
};

/**
 * Builds `updateKind` and `updateAvailable`. A tag change wins over a digest change: the new
 * tag is the update the user acts on, and its digest differs from the local one anyway. The caller compares
 * like with like (index digest against the digest the image was pulled by), or multi-arch images would show
 * a permanent digest update.
 */
export function buildUpdateKind(input: UpdateKindInput): { updateKind: UpdateKind; updateAvailable: boolean } {
  const candidate = input.tagCandidate;
  if (candidate && candidate.tag !== input.localTag) {
    const updateKind: UpdateKind = { kind: 'tag', localValue: input.localTag, remoteValue: candidate.tag };
    if (candidate.semverDiff !== undefined) updateKind.semverDiff = candidate.semverDiff;
    return { updateKind, updateAvailable: true };
  }
  const local = input.digest?.local;
  const remote = input.digest?.remote;
  if (local && remote && local !== remote) {
    return { updateKind: { kind: 'digest', localValue: local, remoteValue: remote }, updateAvailable: true };
  }
  return { updateKind: UNKNOWN_UPDATE_KIND, updateAvailable: false };
}

/** The pending update that skips, snoozes and the gate talk about; undefined when nothing is pending. */
export function pendingUpdateOf(updateKind: UpdateKind): PendingUpdate | undefined {
  if (updateKind.kind === 'unknown') return undefined;
  return { kind: updateKind.kind, remoteValue: updateKind.remoteValue };
}
