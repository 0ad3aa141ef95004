import { casesFor, type TagCase, tags, to, without } from '../tag-case';

const NODE = tags(`
  latest lts current slim alpine lts-alpine lts-slim current-alpine iron iron-alpine iron-slim hydrogen bookworm bookworm-slim
  alpine3.20 18 18-alpine 18.20.4 18.20.4-alpine 18.20.4-slim 18.20.4-bookworm-slim 20 20-slim 20-alpine 20-bookworm
  20-bookworm-slim 20.11 20.11.1 20.11.1-slim 20.11.1-alpine 20.11.1-alpine3.19 20.11.1-bookworm-slim 20.11.1-bullseye 20.17
  20.17.0 20.17.0-slim 20.17.0-alpine 20.17.0-alpine3.19 20.17.0-alpine3.20 20.17.0-bookworm 20.17.0-bookworm-slim
  20.17.0-bullseye 22 22-alpine 22-slim 22.6 22.6.0 22.6.0-slim 22.6.0-alpine 22.6.0-alpine3.20 22.6.0-bookworm-slim 22.9 22.9.0
  22.9.0-slim 22.9.0-alpine 22.9.0-alpine3.20 22.9.0-bookworm-slim
`);

/** September 2024: 3.13 only as release candidates (and python's own `3.13-rc` floating tags). */
const PYTHON = tags(`
  latest slim alpine bookworm slim-bookworm alpine3.19 alpine3.20 3 3-slim 3-alpine 3.11 3.11-slim 3.11.9 3.11.9-slim
  3.11.9-alpine3.20 3.11.10 3.11.10-slim 3.11.10-slim-bookworm 3.11.10-alpine3.20 3.12 3.12-slim 3.12-alpine 3.12-slim-bookworm
  3.12-alpine3.20 3.12.4 3.12.4-slim 3.12.4-alpine3.19 3.12.4-alpine3.20 3.12.4-slim-bookworm 3.12.4-bookworm
  3.12.4-windowsservercore-ltsc2022 3.12.5 3.12.5-slim 3.12.5-alpine3.19 3.12.5-alpine3.20 3.12.5-slim-bookworm 3.12.6
  3.12.6-slim 3.12.6-alpine3.20 3.12.6-slim-bookworm 3.12.6-windowsservercore-ltsc2022 3.12.6-windowsservercore-1809 3.13-rc
  3.13-rc-slim 3.13-rc-alpine 3.13.0rc1 3.13.0rc1-slim 3.13.0rc2 3.13.0rc2-slim 3.13.0rc2-slim-bookworm 3.13.0rc2-alpine3.20
`);
/** October 2024: 3.13.0 final and the first 3.14 alpha. */
const PYTHON_OCT = [
  ...PYTHON,
  ...tags('3.13 3.13-slim 3.13.0 3.13.0-slim 3.13.0-alpine3.20 3.13.0-slim-bookworm 3.14.0a1 3.14.0a1-slim'),
];

const GOLANG = tags(`
  latest alpine bookworm 1 1.22 1.22-bookworm 1.22-alpine 1.22.5 1.22.5-bookworm 1.22.5-alpine 1.22.5-alpine3.19 1.22.5-alpine3.20
  1.22.6 1.22.6-bookworm 1.22.6-alpine3.20 1.22.7 1.22.7-bookworm 1.22.7-alpine3.20 1.22.7-windowsservercore-ltsc2022 1.23
  1.23-bookworm 1.23.0 1.23.0-bookworm 1.23.1 1.23.1-bookworm 1.23.1-alpine3.20 1.23.1-windowsservercore-ltsc2022 1.23rc2
  1.23rc2-bookworm
`);
const GOLANG_BEFORE_123 = without(GOLANG, /^1\.23(\.\d+)?(-|$)/);

/** Temurin: `_7` is the JDK build number, which restarts with every release. */
const TEMURIN = tags(`
  latest 21 21-jdk 21-jre 21-jdk-jammy 21.0.3_9-jdk-jammy 21.0.4_7-jdk-jammy 21.0.4_7-jre-jammy 21.0.4_7-jdk-alpine
  21.0.5_11-jdk-jammy 21.0.5_11-jre-jammy 21.0.5_11-jdk-noble 17.0.12_7-jdk-jammy 17.0.13_11-jdk-jammy 23_37-jdk-noble
`);

/** Node-RED: `-20`/`-22` is the Node.js major inside, not a build counter. */
const NODE_RED = tags(`
  latest latest-20 latest-22 latest-minimal 4.0.2 4.0.2-20 4.0.2-22 4.0.2-20-minimal 4.0.3 4.0.3-20 4.0.3-22 4.0.3-20-minimal
  4.0.3-22-minimal 4.0.5-22 4.0.5 3.1.9-18
`);

const NODE_RED_403 = without(NODE_RED, /^4\.0\.5/);

const node = casesFor('node', NODE);
const python = casesFor('python', PYTHON);
const golang = casesFor('golang', GOLANG);
const temurin = casesFor('eclipse-temurin', TEMURIN);
const nodeRed = casesFor('nodered/node-red', NODE_RED);
const node20 = { includeTags: '^20\\.' };

export const RUNTIME_CASES: readonly TagCase[] = [
  node('slim-major', 'variant', '20.11.1-slim', to('22.9.0-slim', 'major'), 'brief example; newest slim'),
  node('slim-pinned', 'policy', '20.11.1-slim', to('20.17.0-slim', 'minor'), 'LTS users pin the major with include', {
    policy: node20,
  }),
  node(
    'alpine-same-base',
    'policy',
    '20.11.1-alpine3.19',
    to('20.17.0-alpine3.19', 'minor'),
    'at 20.17.0 both bases exist: stay on 3.19',
    {
      policy: node20,
    },
  ),
  node(
    'alpine-base-forward',
    'variant',
    '20.11.1-alpine3.19',
    to('22.9.0-alpine3.20', 'major'),
    '22.x exists only on alpine3.20',
  ),
  node('floating-slim', 'floating', '20-slim', to('22-slim', 'major'), 'a one-part slim tag moves by major'),
  node('two-part', 'policy', '20.11', to('20.17', 'minor'), 'numeric minor compare (17 > 11)', { policy: node20 }),
  node(
    'bookworm-slim',
    'variant',
    '18.20.4-bookworm-slim',
    to('22.9.0-bookworm-slim', 'major'),
    'a two-word variant is matched whole',
  ),
  node(
    'bullseye',
    'variant',
    '20.11.1-bullseye',
    to('20.17.0-bullseye', 'minor'),
    'bullseye ends at 20.17.0; no jump to bookworm',
  ),
  node('lts-alpine', 'rolling', 'lts-alpine', null, 'brief example: channel plus variant'),
  node('codename', 'rolling', 'iron', null, 'an LTS codename is not a version'),

  python('rc-leak-floating', 'prerelease', '3.12', null, '3.13-rc is a prerelease; a stable tag never moves to it'),
  python('rc-leak-slim', 'prerelease', '3.12-slim', null, '3.13-rc-slim is a prerelease'),
  python(
    'alpine-base-forward',
    'variant',
    '3.12.4-alpine3.19',
    to('3.12.6-alpine3.20', 'patch'),
    '3.12.6 is only built on alpine3.20',
  ),
  python(
    'alpine-versioned',
    'variant',
    '3.12.4-alpine3.20',
    to('3.12.6-alpine3.20', 'patch'),
    'brief example: the versioned alpine variant is kept',
  ),
  python(
    'slim-bookworm',
    'variant',
    '3.12.4-slim-bookworm',
    to('3.12.6-slim-bookworm', 'patch'),
    'a two-word variant is matched whole',
  ),
  python(
    'windows',
    'variant',
    '3.12.4-windowsservercore-ltsc2022',
    to('3.12.6-windowsservercore-ltsc2022', 'patch'),
    'ltsc2022 stays ltsc2022; -1809 is another variant',
  ),
  python('rc', 'prerelease', '3.13.0rc1-slim', to('3.13.0rc2-slim', 'prerelease'), 'glued rc follows newer rcs'),
  python(
    'rc-to-final',
    'prerelease',
    '3.13.0rc1',
    to('3.13.0', 'prerelease'),
    'rc reaches the release; 3.14.0a1 is down the ladder',
    {
      remoteTags: PYTHON_OCT,
    },
  ),
  python(
    'rc-floating-to-final',
    'prerelease',
    '3.13-rc-slim',
    to('3.13-slim', 'prerelease'),
    'python’s floating rc tag',
    {
      remoteTags: PYTHON_OCT,
    },
  ),
  python('alpha-leak', 'prerelease', '3.12.6', to('3.13.0', 'minor'), 'a stable tag skips 3.14.0a1 for 3.13.0', {
    remoteTags: PYTHON_OCT,
  }),
  python(
    'pinned-numeric',
    'policy',
    '3.11.9-slim',
    to('3.11.10-slim', 'patch'),
    'include keeps 3.11; 10 > 9 numerically',
    {
      policy: { includeTags: '^3\\.11\\.' },
    },
  ),
  python('base-image-name', 'rolling', 'alpine3.19', null, 'the number belongs to alpine, not python'),

  golang(
    'bookworm',
    'variant',
    '1.22.5-bookworm',
    to('1.23.1-bookworm', 'minor'),
    'the bookworm variant stays bookworm',
  ),
  golang(
    'alpine-base-forward',
    'variant',
    '1.22.5-alpine3.19',
    to('1.23.1-alpine3.20', 'minor'),
    'a versioned alpine variant moves forward with a newer release',
  ),
  golang('two-part', 'floating', '1.22', to('1.23', 'minor'), 'a two-part tag moves to the next two-part tag'),
  golang('rc-to-final', 'prerelease', '1.23rc2', to('1.23', 'prerelease'), 'Go rcs are two-part with a glued rc'),
  golang(
    'rc-bookworm',
    'prerelease',
    '1.23rc2-bookworm',
    to('1.23-bookworm', 'prerelease'),
    'an rc with a variant reaches the final variant',
  ),
  golang('rc-leak', 'prerelease', '1.22-bookworm', null, 'July 2024: 1.23rc2-bookworm is a prerelease', {
    remoteTags: GOLANG_BEFORE_123,
  }),
  golang('patch-before', 'semver', '1.22.5', to('1.22.7', 'patch'), 'July 2024 snapshot: the newest 1.22 patch', {
    remoteTags: GOLANG_BEFORE_123,
  }),

  temurin(
    'build-restarts',
    'build',
    '21.0.4_7-jdk-jammy',
    to('21.0.5_11-jdk-jammy', 'patch'),
    '_N orders builds of one release',
  ),
  temurin(
    'build-lower',
    'build',
    '21.0.3_9-jdk-jammy',
    to('21.0.5_11-jdk-jammy', 'patch'),
    'a new release may restart at a lower build',
  ),
  temurin(
    'jre',
    'variant',
    '21.0.4_7-jre-jammy',
    to('21.0.5_11-jre-jammy', 'patch'),
    '-jre is one variant, -jdk another',
  ),
  temurin(
    'seventeen',
    'build',
    '17.0.12_7-jdk-jammy',
    to('21.0.5_11-jdk-jammy', 'major'),
    'the highest of the family, across majors',
  ),
  temurin('alpine-ends', 'variant', '21.0.4_7-jdk-alpine', null, 'no newer alpine build yet'),

  nodeRed(
    'same-node',
    'variant',
    '4.0.2-20',
    to('4.0.3-20', 'patch'),
    '-20 is Node 20: at 4.0.3 both exist, stay on 20',
    {
      remoteTags: NODE_RED_403,
    },
  ),
  nodeRed(
    'node-forward',
    'variant',
    '4.0.2-20',
    to('4.0.5-22', 'patch'),
    'the highest release wins; 4.0.5 ships only on Node 22',
  ),
  nodeRed('minimal', 'variant', '4.0.2-20-minimal', to('4.0.3-20-minimal', 'patch'), 'numbered variant plus word'),
  nodeRed('not-a-rebuild', 'regression', '4.0.3-20', null, 'Node 22 of the same release is not a newer build', {
    remoteTags: NODE_RED_403,
  }),
  nodeRed('channel-with-number', 'rolling', 'latest-20', null, 'latest-22 is another Node, not a newer latest'),
  nodeRed('plain', 'semver', '4.0.2', to('4.0.5', 'patch'), 'the plain family ignores the Node-numbered variants'),
];
