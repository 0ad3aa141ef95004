import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileTagPolicy, findTagCandidate, isVersionTag, semverDiff } from '../../shared/tags';
import { DOC_PATH, readCorpusTable, renderCorpusTable } from './corpus-table';
import { TAG_CASES } from './tag-cases';

describe('tag corpus', () => {
  it.each(TAG_CASES.map((tagCase) => [tagCase.id, tagCase] as const))('%s', (_id, tagCase) => {
    const policy = compileTagPolicy(tagCase.policy ?? {});
    const found = findTagCandidate(tagCase.current, tagCase.remoteTags, policy, tagCase.skipTags);
    expect(found ?? null, tagCase.why).toEqual(tagCase.expected);
    // A rolling current tag is watched by digest only; a tag that has a candidate is a version.
    if (tagCase.category === 'rolling') expect(isVersionTag(tagCase.current, policy)).toBe(false);
    if (tagCase.expected !== null) expect(isVersionTag(tagCase.current, policy)).toBe(true);
    if (tagCase.expected !== null) {
      expect(semverDiff(tagCase.current, tagCase.expected.tag, policy)).toBe(tagCase.expected.semverDiff);
    }
  });
});

describe('the corpus itself', () => {
  it('has at least 150 cases with unique ids and a one-line why', () => {
    expect(TAG_CASES.length).toBeGreaterThanOrEqual(150);
    expect(new Set(TAG_CASES.map((tagCase) => tagCase.id)).size).toBe(TAG_CASES.length);
    for (const tagCase of TAG_CASES) expect(tagCase.why, tagCase.id).toMatch(/^[^\n]{8,}$/);
  });

  it('expects only tags that the repository lists and that are not skipped', () => {
    for (const { id, expected, remoteTags, skipTags = [] } of TAG_CASES) {
      if (expected === null) continue;
      expect(remoteTags, id).toContain(expected.tag);
      expect(skipTags, id).not.toContain(expected.tag);
    }
  });

  it('is summarised truthfully in docs/tag-corpus.md (run `npx tsx test/corpus/corpus-table.ts` to refresh)', () => {
    expect(readCorpusTable(readFileSync(DOC_PATH, 'utf8'))).toBe(renderCorpusTable());
  });
});
