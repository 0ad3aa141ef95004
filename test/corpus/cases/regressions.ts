import { casesFor, type TagCase, tags, to } from '../tag-case';

// The shapes of bugs users reported against update monitors, and policy edge cases. Tag lists are
// small and synthetic where the shape matters more than the image.
const APP = tags(`
  latest 1.2.3 1.2.4 1.3.0 v1.2.4 v2.0.0 1.3.0-alpha.1 1.11.0-alpha.1 1.11.0-rc.1 1.12.0-dev 1.9.0 1.10.0 1.2.3.4 1.2.3.5 2 2-slim
  2-slim-rootless
  3-slim-rootless sha-3b1e0c4 sha256-8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4.sig
  sha256-8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4.att
`);

/** What a registry may really return: duplicates, odd casing, junk, no order at all. */
const GARBAGE = [
  '1.2.5',
  '',
  ' ',
  '..',
  '1..2',
  '-1.2.3',
  '1.2.3-',
  '1.2.3.',
  'v',
  '1.2.99999999999999999',
  'x'.repeat(300),
  `1.2.4-${'a'.repeat(130)}`,
  '9.9.9.9.9',
  '1.2.4',
  '1.2.4',
  'ÿ1.3.0',
  '1.2.6 ',
];

const app = casesFor('example/app', APP);
const garbage = casesFor('example/garbage', GARBAGE);
const SHELL = casesFor('example/respin', tags('1.2.3-4 1.2.3-9 1.2.4-1 1.2.4-2 1.2.4 1.2.5-ls7'));
const CALVER_PADDING = casesFor('example/calver-padding', tags('2024.06.0 2024.7.0 2024.07.0 2024.05.1'));
const DATED = casesFor('example/dated', tags('2024-08-03 2024-08-17 2024-09-01 latest'));
const MSSQL = casesFor(
  'mcr.microsoft.com/mssql/server',
  tags(
    '2022-latest 2019-latest 2019-CU28-ubuntu-20.04 2022-CU13-ubuntu-22.04 2022-CU14-ubuntu-22.04 2022-CU15-GDR1-ubuntu-22.04',
  ),
);
const DROPPED_V = casesFor('example/dropped-v', tags('v1.2.3 v1.2.4 1.3.0 1.3.1 latest'));
const RELEASE = casesFor('example/release-prefix', tags('release-1.2.3 release-1.2.4 1.2.5 V1.2.3 V1.2.4 v1.3.0'));
// Prereleases of one version, after What's Up Docker's own case (`1.0.0-test1` → `1.0.0-test2`).
const NEXT_PRERELEASE = casesFor(
  'example/prerelease-next',
  tags('1.0.0-test1 1.0.0-test2 1.0.0-dev 1.0.0-rc.1 1.0.0-rc.2 1.0.0-snapshot 1.0.1-rc.1 1.1.0-rc.1'),
);
const released = (...extra: string[]) => tags(`1.0.0-test1 1.0.0-test2 1.0.0-rc.1 1.0.0-rc.2 ${extra.join(' ')}`);
const numericTransform = { transformTags: '^(\\d+)\\.(\\d+)\\.(\\d+)-(\\d+)$ => $1.$2.$3' };

export const REGRESSION_CASES: readonly TagCase[] = [
  app('latest-never-by-tag', 'regression', 'latest', null, 'a rolling tag is never "upgraded" to a version tag'),
  app('no-v-switch', 'regression', '1.2.3', to('1.10.0', 'minor'), 'v2.0.0 is higher but belongs to another family'),
  app('no-v-switch-back', 'regression', 'v1.2.4', to('v2.0.0', 'major'), 'and the v family ignores unprefixed tags'),
  app('numeric-not-lexical', 'regression', '1.9.0', to('1.10.0', 'minor'), '10 > 9; a string sort would say otherwise'),
  app('four-part', 'regression', '1.2.3.4', to('1.2.3.5', 'patch'), 'four parts compare only with four parts'),
  app('three-not-four', 'regression', '1.2.2', to('1.10.0', 'minor'), '1.2.3.4 is not a three-part tag'),
  app('no-slim-rootless', 'regression', '2', null, 'no jump from 2 to 2-slim-rootless or 3-slim-rootless'),
  app('slim-rootless', 'variant', '2-slim-rootless', to('3-slim-rootless', 'major'), 'the variant moves within itself'),
  app('prerelease-leak', 'prerelease', '1.10.0', null, '1.11.0-alpha.1, 1.11.0-rc.1 and 1.12.0-dev are prereleases'),
  app(
    'alpha-climbs',
    'prerelease',
    '1.11.0-alpha.1',
    to('1.11.0-rc.1', 'prerelease'),
    'an alpha climbs the ladder to the rc',
  ),
  app(
    'alpha-follows-track',
    'prerelease',
    '1.3.0-alpha.1',
    to('1.11.0-rc.1', 'minor'),
    'a prerelease user follows the newest prerelease',
  ),
  app(
    'rc-to-stable',
    'prerelease',
    '1.3.0-alpha.1',
    to('1.10.0', 'minor'),
    'excluding prereleases leaves the newest release',
    {
      policy: { excludeTags: '-(alpha|beta|rc|dev)' },
    },
  ),
  app('dev-channel', 'prerelease', '1.12.0-dev', null, 'a dev tag follows dev tags only; none newer'),
  app('sha-current', 'rolling', 'sha-3b1e0c4', null, 'commit tags are identifiers'),
  app('include-narrows', 'policy', '1.2.3', null, 'include never widens the family to v tags', {
    policy: { includeTags: '^v' },
  }),
  app('include-find', 'policy', '1.2.3', to('1.2.4', 'patch'), 'include matches anywhere (find), like WUD', {
    policy: { includeTags: '2\\.4' },
  }),
  app('exclude-all', 'policy', '1.2.3', null, 'exclude can leave nothing', { policy: { excludeTags: '.' } }),
  app('skip-all', 'policy', '1.9.0', null, 'every newer tag is skipped', { skipTags: ['1.10.0'] }),
  app('unsorted', 'regression', '1.2.3', to('1.10.0', 'minor'), 'order of the list is irrelevant', {
    remoteTags: [...APP].reverse(),
  }),

  garbage(
    'junk-ignored',
    'regression',
    '1.2.3',
    to('1.2.5', 'patch'),
    'junk, duplicates, 300-char and padded tags are ignored',
  ),
  garbage('junk-current', 'rolling', 'x'.repeat(300), null, 'a current tag over 128 characters is not a version'),

  SHELL(
    'transform-equal',
    'policy',
    '1.2.3-4',
    to('1.2.5-ls7', 'patch'),
    'after the transform only the release counts',
    {
      policy: { transformTags: '^(\\d+\\.\\d+\\.\\d+)-.*$ => $1' },
    },
  ),
  SHELL(
    'transform-brief',
    'policy',
    '1.2.3-4',
    to('1.2.4-2', 'patch'),
    'brief example; tie 1.2.4 vs -1 vs -2: natural order',
    {
      policy: numericTransform,
    },
  ),
  SHELL('transform-same', 'policy', '1.2.3-4', null, '1.2.3-9 equals the current release after the transform', {
    policy: numericTransform,
    remoteTags: ['1.2.3-9', '1.2.3-4'],
  }),
  SHELL(
    'transform-exclude-original',
    'policy',
    '1.2.3-4',
    to('1.2.4-2', 'patch'),
    'exclude sees the original tag, not the rewrite',
    {
      policy: { transformTags: '^(\\d+\\.\\d+\\.\\d+)-.*$ => $1', excludeTags: '-ls' },
    },
  ),
  SHELL(
    'no-transform',
    'variant',
    '1.2.3-4',
    to('1.2.4-2', 'patch'),
    'a bare -N is a variant number: 1.2.3-9 is not newer',
  ),
  CALVER_PADDING(
    'tie-padding',
    'calver',
    '2024.06.0',
    to('2024.07.0', 'minor'),
    'equal versions: the current zero-padding wins',
  ),
  CALVER_PADDING(
    'tie-padding-unpadded',
    'calver',
    '2024.5.1',
    to('2024.7.0', 'minor'),
    'and an unpadded tag keeps unpadded',
  ),
  DATED(
    'dashed-date',
    'regression',
    '2024-08-03',
    null,
    'a dashed date is one number plus variant words; use a transform',
  ),
  DATED(
    'dashed-date-transform',
    'policy',
    '2024-08-03',
    to('2024-09-01', 'minor'),
    'the transform makes it three parts',
    {
      policy: { transformTags: '^(\\d{4})-(\\d{2})-(\\d{2})$ => $1.$2.$3' },
    },
  ),
  MSSQL(
    'cu-in-variant',
    'regression',
    '2022-CU13-ubuntu-22.04',
    null,
    'the CU number sits in the variant words: use a transform',
  ),
  MSSQL(
    'cu-transform',
    'policy',
    '2022-CU13-ubuntu-22.04',
    to('2022-CU14-ubuntu-22.04', 'minor'),
    'year.CU; GDR builds do not match',
    {
      policy: { transformTags: '^(\\d{4})-CU(\\d+)-ubuntu-\\d+\\.\\d+$ => $1.$2' },
    },
  ),
  DROPPED_V('silent', 'regression', 'v1.2.4', null, 'the project dropped its v prefix: no family switch by default'),
  DROPPED_V('transform', 'policy', 'v1.2.4', to('1.3.1', 'minor'), 'a transform that strips the v joins both schemes', {
    policy: { transformTags: '^v(\\d.*)$ => $1' },
  }),
  // Regression (issue 33, item 18): a running prerelease was never offered the next one of an unknown label.
  NEXT_PRERELEASE(
    'test-label',
    'prerelease',
    '1.0.0-test1',
    to('1.0.0-test2', 'prerelease'),
    'the next prerelease of the same version, as WUD offers it',
    { remoteTags: tags('1.0.0-test1 1.0.0-test2') },
  ),
  NEXT_PRERELEASE(
    'test-label-release',
    'prerelease',
    '1.0.0-test1',
    to('1.0.0', 'prerelease'),
    'its release is newer still',
    {
      remoteTags: released('1.0.0'),
    },
  ),
  NEXT_PRERELEASE('rc-next', 'prerelease', '1.0.0-rc.1', to('1.0.0-rc.2', 'prerelease'), 'rc.2 follows rc.1', {
    remoteTags: tags('1.0.0-rc.1 1.0.0-rc.2'),
  }),
  NEXT_PRERELEASE('rc-release', 'prerelease', '1.0.0-rc.1', to('1.0.0', 'prerelease'), '1.0.0 > 1.0.0-rc.2 in semver', {
    remoteTags: released('1.0.0'),
  }),
  NEXT_PRERELEASE(
    'dev-to-rc',
    'prerelease',
    '1.0.0-dev',
    to('1.0.0-rc.2', 'prerelease'),
    'at its own version a channel may go on to the rc (dev < rc)',
  ),
  NEXT_PRERELEASE(
    'no-rc-to-snapshot',
    'prerelease',
    '1.0.0-rc.2',
    null,
    'semver puts snapshot above rc, the ladder below: not offered',
    { remoteTags: tags('1.0.0-rc.2 1.0.0-snapshot') },
  ),
  NEXT_PRERELEASE(
    'rc-track',
    'prerelease',
    '1.0.0-rc.1',
    to('1.0.1-rc.1', 'patch'),
    'a later rc is offered too: prerelease users follow the track',
    { remoteTags: tags('1.0.0-rc.1 1.0.1-rc.1') },
  ),
  NEXT_PRERELEASE('rc-track-release', 'prerelease', '1.0.0-rc.1', to('1.0.1', 'patch'), 'and its release above it', {
    remoteTags: tags('1.0.0-rc.1 1.0.1-rc.1 1.0.1'),
  }),
  NEXT_PRERELEASE('release-no-rc', 'prerelease', '1.0.0', null, 'a running release is never offered 1.1.0-rc.1', {
    remoteTags: tags('1.0.0 1.0.0-rc.2 1.1.0-rc.1'),
  }),
  NEXT_PRERELEASE(
    'release-rc-policy',
    'policy',
    '1.0.0',
    to('1.1.0-rc.1', 'minor'),
    'unless a transform reads the rc as its release',
    {
      remoteTags: tags('1.0.0 1.0.0-rc.2 1.1.0-rc.1'),
      policy: { transformTags: '^(\\d+\\.\\d+\\.\\d+)-rc\\.\\d+$ => $1' },
    },
  ),
  RELEASE('release-prefix', 'semver', 'release-1.2.3', to('release-1.2.4', 'patch'), 'release- prefix is a family'),
  RELEASE('capital-v', 'semver', 'V1.2.3', to('V1.2.4', 'patch'), 'V is not v: another prefix, another family'),
];
