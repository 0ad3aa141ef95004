import { describe, expect, it } from 'vitest';
import type { ImageCheckResult } from './check-image';
import { evaluateUpdate, type UpdateEvaluationInput } from './evaluate-update';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1);
const d = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

function input(check: Partial<ImageCheckResult>, over: Partial<UpdateEvaluationInput> = {}): UpdateEvaluationInput {
  return {
    check: { tagWatched: true, digestWatched: false, digestChanged: false, errors: [], ...check },
    localTag: '1.0.0',
    localDigest: d(1),
    policy: {},
    previousClock: undefined,
    previousGate: undefined,
    thresholdDays: 7,
    now: T0,
    ...over,
  };
}

function checked(evaluation: ReturnType<typeof evaluateUpdate>) {
  if (evaluation.status !== 'checked')
    throw new Error(`expected a checked evaluation, got ${JSON.stringify(evaluation)}`);
  return evaluation;
}

describe('evaluateUpdate', () => {
  it('describes a tag update with its trusted date and rendered link', () => {
    const result = checked(
      evaluateUpdate(
        input(
          {
            candidate: {
              tag: '2.0.0',
              semverDiff: 'major',
              digest: d(2),
              publishedAt: { date: '2026-10-30T00:00:00Z', trusted: true },
            },
          },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the dd.link.template syntax is literally ${name}
          { linkTemplate: 'https://github.com/acme/app/releases/tag/v${major}.${minor}.${patch}' },
        ),
      ),
    );
    expect(result).toMatchObject({
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
      result: {
        tag: '2.0.0',
        digest: d(2),
        publishedAt: '2026-10-30T00:00:00Z',
        publishedAtTrusted: true,
        link: 'https://github.com/acme/app/releases/tag/v2.0.0',
      },
      clock: { remoteValue: '2.0.0', updateDetectedAt: T0 },
      updateMaturityLevel: 'hot',
      blockers: [],
    });
  });

  it('describes a digest update only when the check found a like-for-like change', () => {
    const changed = checked(
      evaluateUpdate(
        input(
          { tagWatched: false, digestWatched: true, digestChanged: true, remoteDigest: d(3) },
          { localTag: 'latest' },
        ),
      ),
    );
    expect(changed.updateKind).toEqual({ kind: 'digest', localValue: d(1), remoteValue: d(3) });
    expect(changed.result).toMatchObject({ tag: 'latest', digest: d(3) });
    // Another index digest but the same image for this platform: checkImage says unchanged, and so must this.
    const same = checked(
      evaluateUpdate(
        input(
          { tagWatched: false, digestWatched: true, digestChanged: false, remoteDigest: d(4) },
          { localTag: 'latest' },
        ),
      ),
    );
    expect(same).toMatchObject({ updateAvailable: false, updateKind: { kind: 'unknown' }, clock: undefined });
    expect(same.result).toBeUndefined();
  });

  it('keeps the clock of a pending update across checks and re-creation, and fires maturity-cleared once', () => {
    const policy = { maturityMode: 'mature' as const, maturityMinAgeDays: 3 };
    const check = { candidate: { tag: '2.0.0', semverDiff: 'major' as const } };
    const first = checked(evaluateUpdate(input(check, { policy })));
    expect(first).toMatchObject({
      gate: { state: 'held' },
      updateMaturityLevel: undefined,
      blockers: [{ reason: 'maturity-not-reached' }],
    });
    const later = checked(
      evaluateUpdate(input(check, { policy, previousClock: first.clock, previousGate: first.gate, now: T0 + 3 * DAY })),
    );
    expect(later).toMatchObject({
      gate: { state: 'applicable' },
      maturityCleared: true,
      clock: { updateDetectedAt: T0 },
      blockers: [],
    });
    const again = checked(
      evaluateUpdate(input(check, { policy, previousClock: later.clock, previousGate: later.gate, now: T0 + 4 * DAY })),
    );
    expect(again.maturityCleared).toBe(false);
    // A newer candidate is a new update: a new clock, held again, nothing cleared.
    const newer = checked(
      evaluateUpdate(
        input(
          { candidate: { tag: '3.0.0', semverDiff: 'major' } },
          { policy, previousClock: again.clock, previousGate: again.gate, now: T0 + 5 * DAY },
        ),
      ),
    );
    expect(newer).toMatchObject({
      gate: { state: 'held' },
      maturityCleared: false,
      clock: { remoteValue: '3.0.0', updateDetectedAt: T0 + 5 * DAY },
    });
  });

  it('reports skipped and snoozed updates as blockers without hiding them', () => {
    const result = checked(
      evaluateUpdate(
        input(
          { candidate: { tag: '2.0.0', semverDiff: 'major' } },
          { policy: { skipTags: ['2.0.0'], snoozeUntil: '2026-11-05T00:00:00Z' } },
        ),
      ),
    );
    expect(result.updateAvailable).toBe(true);
    expect(result.blockers.map((blocker) => blocker.reason)).toEqual(['skipped', 'snoozed']);
  });

  it('never treats a failed lookup as nothing pending', () => {
    const failed = evaluateUpdate(input({ errors: [{ phase: 'tags', kind: 'timeout', message: 'no answer' }] }));
    expect(failed).toEqual({ status: 'failed', errors: [{ phase: 'tags', kind: 'timeout', message: 'no answer' }] });
    // A missing date alone is not decisive: the update is still known.
    const dateless = evaluateUpdate(
      input({
        candidate: { tag: '2.0.0', semverDiff: 'major' },
        errors: [{ phase: 'published', kind: 'timeout', message: 'x' }],
      }),
    );
    expect(dateless.status).toBe('checked');
  });
});
