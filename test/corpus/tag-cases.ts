import { BASE_IMAGE_CASES } from './cases/base-images';
import { DATABASE_CASES } from './cases/databases';
import { LINUXSERVER_CASES } from './cases/linuxserver';
import { REGRESSION_CASES } from './cases/regressions';
import { RUNTIME_CASES } from './cases/runtimes';
import { SELF_HOSTED_CASES } from './cases/self-hosted';
import { VENDOR_CASES } from './cases/vendors';
import { WEB_CASES } from './cases/web';
import type { TagCase } from './tag-case';

export type { ExpectedCandidate, TagCase, TagCaseCategory } from './tag-case';

/**
 * The tag corpus: real tag lists of images people run, the current tag, and the one answer a
 * careful human would give. Run by tag-corpus.test.ts; summarised in docs/tag-corpus.md.
 */
export const TAG_CASES: readonly TagCase[] = [
  ...WEB_CASES,
  ...DATABASE_CASES,
  ...RUNTIME_CASES,
  ...SELF_HOSTED_CASES,
  ...LINUXSERVER_CASES,
  ...BASE_IMAGE_CASES,
  ...VENDOR_CASES,
  ...REGRESSION_CASES,
];
