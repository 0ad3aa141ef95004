import { casesFor, type TagCase, tags, to, without } from '../tag-case';

const POSTGRES = tags(`
  latest alpine bookworm bullseye alpine3.20 12 12.20 12-alpine 13 13.16 14 14.13 15 15.8 15-alpine 15.8-alpine 15.8-bookworm 16 16.3
  16.4 16-alpine 16.3-alpine 16.4-alpine 16-alpine3.20 16.4-alpine3.20 16.3-alpine3.19 16.3-alpine3.20 16-bookworm 16.3-bookworm
  16.4-bookworm 16.4-bullseye 17 17.0 17-alpine 17-alpine3.20 17.0-alpine 17.0-alpine3.20 17.0-bookworm 17rc1 17rc1-alpine
  17rc1-bookworm 17beta3 17beta3-alpine 17beta3-alpine3.20
`);
/** September 2024: 17 only as beta and rc. */
const POSTGRES_BEFORE_17 = without(POSTGRES, /^17(\.0)?(-|$)/);

const REDIS = tags(`
  latest alpine bookworm alpine3.20 6 6-alpine 6.2 6.2-alpine 6.2.13 6.2.14 6.2.14-alpine 6.2.14-alpine3.20 7 7-alpine 7-bookworm 7.2
  7.2-alpine 7.2-alpine3.20 7.2-bookworm 7.2.4 7.2.4-alpine 7.2.4-alpine3.19 7.2.5 7.2.5-alpine 7.2.5-alpine3.20 7.2.5-bookworm 7.4
  7.4-alpine 7.4.0 7.4.0-alpine 7.4.0-alpine3.20 7.4.0-bookworm 7.4.1 7.4.1-alpine 7.4.1-alpine3.20 7.4.1-bookworm 7.4-rc2
  7.4-rc2-alpine 7.4-rc2-alpine3.20 7.4-rc2-bookworm
`);
/** July 2024: 7.4 only as a release candidate. */
const REDIS_BEFORE_74 = without(REDIS, /^7\.4(\.\d+)?(-alpine|-bookworm|-alpine3\.20)?$/);

const MARIADB = tags(`
  latest lts noble jammy lts-noble 10 10.5.26 10.6 10.6.19 10.6.19-focal 10.11 10.11-jammy 10.11.8 10.11.9 10.11.9-jammy 11 11.2.5
  11.3.2 11.4 11.4-noble 11.4.2 11.4.2-noble 11.4.3 11.4.3-noble 11.5 11.5.2 11.5.2-noble 11.6-rc 11.6.1-rc 11.6.1-rc-noble
`);

const MONGO = tags(`
  latest jammy noble windowsservercore nanoserver 5.0 5.0.28 6 6.0 6.0-jammy 6.0.16 6.0.17 6.0.17-jammy 7 7.0 7.0-jammy 7.0.12
  7.0.12-jammy 7.0.14 7.0.14-jammy 7.0.12-windowsservercore-ltsc2022 7.0.14-windowsservercore-ltsc2022 7.0.14-nanoserver-ltsc2022
  8.0.0-rc18 8.0.0-rc18-jammy 8.0.0-rc20 8.0.0-rc20-jammy 8 8.0 8.0-noble 8.0.0 8.0.0-noble
`);

const MYSQL = tags(`
  latest lts innovation oracle lts-oracle innovation-oracle 8 8-oracle 8.0 8.0-oracle 8.0-bookworm 8.0.38 8.0.38-oracle 8.0.39
  8.0.39-oracle 8.0.39-bookworm 8.4 8.4-oracle 8.4.1 8.4.2 8.4.2-oracle 9 9-oracle 9.0 9.0-oracle 9.0.1 9.0.1-oracle
`);

const ELASTICSEARCH = tags(`
  7.17.22 7.17.23 7.17.24 8.14.3 8.15.0 8.15.1 8.15.2 8.15.0-amd64 8.15.0-arm64 8.15.2-amd64 8.15.2-arm64
`);

const RABBITMQ = tags(`
  latest management alpine management-alpine 3 3-management 3-alpine 3-management-alpine 3.12 3.12-management 3.12.14
  3.12.14-management 3.13 3.13-management 3.13-alpine 3.13-management-alpine 3.13.6 3.13.6-management 3.13.6-management-alpine 3.13.7
  3.13.7-management 3.13.7-alpine 3.13.7-management-alpine 4 4-management 4.0 4.0-management 4.0.2 4.0.2-management
  4.0.2-management-alpine 4.0.2-alpine 4.0.0-beta.5 4.0.0-beta.5-management 4.0.0-rc.1-management
`);

/** Bitnami: `-debian-12` names the base, `-rN` counts rebuilds of one upstream version. */
const BITNAMI_POSTGRESQL = tags(`
  latest 16 16-debian-12 16.3.0 16.3.0-debian-12-r23 16.4.0 16.4.0-debian-12-r2 16.4.0-debian-12-r3 16.4.0-debian-12-r9 17 17.0.0
  17.0.0-debian-12-r1 17.0.0-debian-12-r3
`);

const postgres = casesFor('postgres', POSTGRES);
const redis = casesFor('redis', REDIS);
const mariadb = casesFor('mariadb', MARIADB);
const mongo = casesFor('mongo', MONGO);
const mysql = casesFor('mysql', MYSQL);
const elastic = casesFor('elasticsearch', ELASTICSEARCH);
const rabbitmq = casesFor('rabbitmq', RABBITMQ);
const bitnami = casesFor('bitnami/postgresql', BITNAMI_POSTGRESQL);

export const DATABASE_CASES: readonly TagCase[] = [
  postgres('one-part', 'floating', '16', to('17', 'major'), 'a one-part tag moves by major'),
  postgres(
    'one-part-alpine',
    'floating',
    '16-alpine',
    to('17-alpine', 'major'),
    'brief example: 16-alpine → 17-alpine, not 17 or 17-bookworm',
  ),
  postgres('two-part', 'floating', '16.3', to('17.0', 'major'), 'postgres 10+ is major.minor'),
  postgres('two-part-pinned', 'policy', '16.3', to('16.4', 'minor'), 'include holds major 16; the minor still moves', {
    policy: { includeTags: '^16\\.' },
  }),
  postgres('bookworm', 'variant', '16.3-bookworm', to('17.0-bookworm', 'major'), 'not -bullseye, not plain'),
  postgres(
    'alpine-base-forward',
    'variant',
    '16.3-alpine3.19',
    to('17.0-alpine3.20', 'major'),
    'versioned alpine moves forward',
  ),
  postgres(
    'alpine-base-same',
    'variant',
    '16.3-alpine3.20',
    to('17.0-alpine3.20', 'major'),
    'a versioned alpine variant stays on its base while it is built',
  ),
  postgres('rc-to-final', 'prerelease', '17rc1', to('17', 'prerelease'), 'glued rc reaches its release'),
  postgres(
    'beta-to-final',
    'prerelease',
    '17beta3-alpine',
    to('17-alpine', 'prerelease'),
    'beta of a variant reaches the final variant',
  ),
  postgres(
    'beta-versioned-alpine',
    'prerelease',
    '17beta3-alpine3.20',
    to('17-alpine3.20', 'prerelease'),
    'same with a versioned variant',
  ),
  postgres('rc-leak-plain', 'prerelease', '16.4', null, 'September 2024: only 17rc1/17beta3 are above', {
    remoteTags: POSTGRES_BEFORE_17,
  }),
  postgres('rc-leak-alpine', 'prerelease', '16-alpine', null, '17rc1-alpine is not offered', {
    remoteTags: POSTGRES_BEFORE_17,
  }),
  postgres('beta-to-rc', 'prerelease', '17beta3', to('17rc1', 'prerelease'), 'a beta climbs the ladder to the rc', {
    remoteTags: POSTGRES_BEFORE_17,
  }),
  postgres('rolling', 'rolling', 'bookworm', null, 'a distribution name alone is not a version'),

  redis(
    'alpine-versioned',
    'variant',
    '7.2.5-alpine3.20',
    to('7.4.1-alpine3.20', 'minor'),
    'brief example: the versioned alpine variant is kept',
  ),
  redis(
    'alpine-base-forward',
    'variant',
    '7.2.4-alpine3.19',
    to('7.4.1-alpine3.20', 'minor'),
    'alpine3.19 builds stopped',
  ),
  redis('alpine', 'variant', '7.2.4-alpine', to('7.4.1-alpine', 'minor'), 'unversioned alpine is its own family'),
  redis('two-part', 'floating', '7.2', to('7.4', 'minor'), 'a two-part tag moves to the next two-part tag'),
  redis('rc-leak', 'prerelease', '7.2', null, 'July 2024: 7.4-rc2 is not an update', { remoteTags: REDIS_BEFORE_74 }),
  redis('rc-leak-alpine', 'prerelease', '7.2-alpine', null, '7.4-rc2-alpine is not an update', {
    remoteTags: REDIS_BEFORE_74,
  }),
  redis('rc-to-final', 'prerelease', '7.4-rc2', to('7.4', 'prerelease'), 'rc of a two-part tag reaches 7.4'),
  redis(
    'rc-alpine-to-final',
    'prerelease',
    '7.4-rc2-alpine',
    to('7.4-alpine', 'prerelease'),
    'prerelease before the variant word',
  ),
  redis('old-line', 'policy', '6.2.13', to('6.2.14', 'patch'), 'include keeps the 6.x line', {
    policy: { includeTags: '^6\\.' },
  }),

  mariadb('minor', 'semver', '11.4.2', to('11.5.2', 'minor'), '11.6.1-rc is a prerelease'),
  mariadb('lts-pinned', 'policy', '11.4.2', to('11.4.3', 'patch'), 'LTS users pin the branch', {
    policy: { includeTags: '^11\\.4\\.' },
  }),
  mariadb('old-lts-pinned', 'policy', '10.11.8', to('10.11.9', 'patch'), 'include keeps the older 10.11 LTS branch', {
    policy: { includeTags: '^10\\.11\\.' },
  }),
  mariadb(
    'noble',
    'variant',
    '11.4.2-noble',
    to('11.5.2-noble', 'minor'),
    'the noble variant, not the rc-noble prerelease',
  ),
  mariadb('numeric-minor', 'policy', '10.6', to('10.11', 'minor'), '10.11 > 10.6 numerically', {
    policy: { includeTags: '^10\\.' },
  }),
  mariadb('rc-no-newer', 'prerelease', '11.6.1-rc', null, 'no newer rc or release yet'),
  mariadb('lts', 'rolling', 'lts', null, 'a channel tag is watched by digest only'),

  mongo('major', 'semver', '7.0.12', to('8.0.0', 'major'), 'final 8.0.0 beats its rcs'),
  mongo('pinned', 'policy', '7.0.12', to('7.0.14', 'patch'), 'include keeps the 7.x line', {
    policy: { includeTags: '^7\\.' },
  }),
  mongo(
    'jammy',
    'variant',
    '7.0.12-jammy',
    to('7.0.14-jammy', 'patch'),
    'mongo 8 moved to noble; jammy ends at 7.0.14',
  ),
  mongo('six', 'policy', '6.0.16', to('6.0.17', 'patch'), 'include keeps the 6.x line', {
    policy: { includeTags: '^6\\.' },
  }),
  mongo('rc-to-final', 'prerelease', '8.0.0-rc18', to('8.0.0', 'prerelease'), 'rc reaches the release over rc20'),
  mongo(
    'rc-jammy',
    'prerelease',
    '8.0.0-rc18-jammy',
    to('8.0.0-rc20-jammy', 'prerelease'),
    'no 8.0.0-jammy: next rc of the variant',
  ),
  mongo(
    'windows',
    'variant',
    '7.0.12-windowsservercore-ltsc2022',
    to('7.0.14-windowsservercore-ltsc2022', 'patch'),
    'the windowsservercore variant, not nanoserver',
  ),

  mysql('major', 'semver', '8.0.38', to('9.0.1', 'major'), 'innovation 9.0 is numerically newest'),
  mysql('pinned', 'policy', '8.0.38', to('8.0.39', 'patch'), 'include keeps the 8.0 line', {
    policy: { includeTags: '^8\\.0\\.' },
  }),
  mysql('oracle', 'variant', '8.0.38-oracle', to('9.0.1-oracle', 'major'), 'the oracle variant stays oracle'),
  mysql('lts-pinned', 'policy', '8.4.1', to('8.4.2', 'patch'), 'include keeps the 8.4 LTS branch', {
    policy: { includeTags: '^8\\.4\\.' },
  }),
  mysql(
    'bookworm-ends',
    'variant',
    '8.0-bookworm',
    null,
    'mysql ships Debian only for 8.0; no jump to another variant',
  ),
  mysql('innovation', 'rolling', 'innovation', null, 'a channel tag is watched by digest only'),

  elastic('patch', 'semver', '8.15.0', to('8.15.2', 'patch'), 'no latest tag in this repository'),
  elastic('seven', 'policy', '7.17.22', to('7.17.24', 'patch'), 'include keeps the 7.x line', {
    policy: { includeTags: '^7\\.' },
  }),
  elastic('arch', 'variant', '8.15.0-arm64', to('8.15.2-arm64', 'patch'), 'architecture suffix is a variant'),

  rabbitmq(
    'management-floating',
    'floating',
    '3.13-management',
    to('4.0-management', 'major'),
    'brief example: -management',
  ),
  rabbitmq(
    'management-pinned',
    'policy',
    '3.13.6-management',
    to('3.13.7-management', 'patch'),
    'include keeps 3.13; the -management variant is kept',
    {
      policy: { includeTags: '^3\\.13\\.' },
    },
  ),
  rabbitmq(
    'management-alpine',
    'variant',
    '3.13.6-management-alpine',
    to('4.0.2-management-alpine', 'major'),
    'a two-word variant is matched whole',
  ),
  rabbitmq(
    'one-part',
    'floating',
    '3-management',
    to('4-management', 'major'),
    'a one-part tag with a variant moves by major',
  ),
  rabbitmq('plain', 'variant', '3.13.6', to('4.0.2', 'major'), 'plain does not become -management'),
  rabbitmq(
    'beta-to-release',
    'prerelease',
    '4.0.0-beta.5-management',
    to('4.0.2-management', 'patch'),
    'past the rc to the newest release',
  ),
  rabbitmq('management', 'rolling', 'management', null, 'a variant name alone is not a version'),

  bitnami(
    'revision',
    'build',
    '16.4.0-debian-12-r2',
    to('16.4.0-debian-12-r9', 'patch'),
    'include keeps 16; -rN is a rebuild counter',
    {
      policy: { includeTags: '^16\\.' },
    },
  ),
  bitnami(
    'major',
    'build',
    '16.4.0-debian-12-r9',
    to('17.0.0-debian-12-r3', 'major'),
    'revision resets with a new version',
  ),
  bitnami('plain', 'variant', '16.3.0', to('17.0.0', 'major'), 'plain tag ignores the revisioned family'),
];
