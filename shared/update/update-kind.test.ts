import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { buildUpdateKind, pendingUpdateOf, UpdateKindSchema } from './update-kind';

const OLD = `sha256:${'a'.repeat(64)}`;
const NEW = `sha256:${'b'.repeat(64)}`;

describe('buildUpdateKind', () => {
  it('reports a newer tag with its semver difference', () => {
    expect(buildUpdateKind({ localTag: '1.2.3', tagCandidate: { tag: '1.3.0', semverDiff: 'minor' } })).toEqual({
      updateKind: { kind: 'tag', localValue: '1.2.3', remoteValue: '1.3.0', semverDiff: 'minor' },
      updateAvailable: true,
    });
  });

  it('leaves semverDiff out for a tag that is not semver', () => {
    expect(buildUpdateKind({ localTag: '2024.10.1', tagCandidate: { tag: '2024.11.0' } }).updateKind).toEqual({
      kind: 'tag',
      localValue: '2024.10.1',
      remoteValue: '2024.11.0',
    });
  });

  it('prefers the tag when both tag and digest changed', () => {
    const result = buildUpdateKind({
      localTag: '1.2.3',
      tagCandidate: { tag: '2.0.0', semverDiff: 'major' },
      digest: { local: OLD, remote: NEW },
    });
    expect(result.updateKind).toEqual({ kind: 'tag', localValue: '1.2.3', remoteValue: '2.0.0', semverDiff: 'major' });
  });

  it('reports a digest change when the tag did not move', () => {
    const expected = { updateKind: { kind: 'digest', localValue: OLD, remoteValue: NEW }, updateAvailable: true };
    expect(buildUpdateKind({ localTag: 'latest', digest: { local: OLD, remote: NEW } })).toEqual(expected);
    // A candidate equal to the running tag is no tag update.
    expect(
      buildUpdateKind({ localTag: 'latest', tagCandidate: { tag: 'latest' }, digest: { local: OLD, remote: NEW } }),
    ).toEqual(expected);
  });

  it('reports no update when nothing changed or a side is unknown', () => {
    const none = { updateKind: { kind: 'unknown' }, updateAvailable: false };
    expect(buildUpdateKind({ localTag: 'latest', digest: { local: OLD, remote: OLD } })).toEqual(none);
    expect(buildUpdateKind({ localTag: 'latest', digest: { local: OLD } })).toEqual(none);
    expect(buildUpdateKind({ localTag: 'latest', digest: { remote: NEW } })).toEqual(none);
    expect(buildUpdateKind({ localTag: '1.2.3' })).toEqual(none);
  });
});

describe('pendingUpdateOf', () => {
  it('gives the kind and remote value of a pending update, and nothing for unknown', () => {
    expect(pendingUpdateOf({ kind: 'tag', localValue: '1', remoteValue: '2' })).toEqual({
      kind: 'tag',
      remoteValue: '2',
    });
    expect(pendingUpdateOf({ kind: 'digest', localValue: OLD, remoteValue: NEW })).toEqual({
      kind: 'digest',
      remoteValue: NEW,
    });
    expect(pendingUpdateOf({ kind: 'unknown' })).toBeUndefined();
  });
});

describe('UpdateKindSchema', () => {
  it('accepts what buildUpdateKind produces and refuses a kind without values', () => {
    const { updateKind } = buildUpdateKind({ localTag: '1.2.3', tagCandidate: { tag: '1.2.4', semverDiff: 'patch' } });
    expect(v.parse(UpdateKindSchema, updateKind)).toEqual(updateKind);
    expect(v.safeParse(UpdateKindSchema, { kind: 'digest' }).success).toBe(false);
    expect(
      v.safeParse(UpdateKindSchema, { kind: 'tag', localValue: '1', remoteValue: '2', semverDiff: 'build' }).success,
    ).toBe(false);
  });
});
