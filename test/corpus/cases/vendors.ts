import { casesFor, type TagCase, tags, to } from '../tag-case';

/** checkmk: `pN` patch levels glued to the release; `bN` betas; dated daily builds. */
const CHECKMK = tags(`
  latest 2.3.0-latest 2.2.0-latest 2.2.0p30 2.2.0p32 2.2.0p33 2.3.0 2.3.0p1 2.3.0p12 2.3.0p13 2.3.0p14 2.3.0p15 2.4.0b1
  2.4.0-2024.09.20
`);
const CHECKMK_LATER = [...CHECKMK, ...tags('2.4.0 2.4.0p1')];

const GRAFANA = tags(`
  latest main latest-ubuntu main-ubuntu 10.4.8 10.4.9 11.0.5 11.0.1-security-01 11.0.1-security-01-ubuntu 11.1.5 11.1.6 11.2.0
  11.2.0-ubuntu 11.2.1 11.2.1-ubuntu 11.2.1-security-01 11.2.1-security-01-ubuntu 11.2.2 11.2.2-ubuntu
`);

const PROMETHEUS = tags(`
  latest main v2.45.6 v2.52.0 v2.53.0 v2.53.1 v2.53.2 v2.54.0-rc.0 v2.54.0-rc.1 v2.54.0 v2.54.1 v2.55.0-rc.0 v3.0.0-beta.0
  v3.0.0-beta.1
`);

const MINIO = tags(`
  latest RELEASE.2024-08-03T04-33-23Z RELEASE.2024-08-17T01-24-54Z RELEASE.2024-09-13T20-26-02Z RELEASE.2024-09-13T20-26-02Z.fips
`);
const MINIO_TRANSFORM = '^RELEASE\\.(\\d+)-(\\d+)-(\\d+)T(\\d+)-(\\d+)-(\\d+)Z$ => $1.$2.$3.$4$5$6';

const GITLAB = tags(`
  latest nightly rc 17.1.6-ce.0 17.2.1-ce.0 17.2.4-ce.0 17.3.0-ce.0 17.3.1-ce.0 17.3.1-ee.0 17.4.0-rc42.ce.0
`);

/** Jenkins: weekly releases have two parts, LTS releases three. */
const JENKINS = tags(`
  latest lts jdk17 lts-jdk17 2.462.1 2.462.2 2.462.1-jdk17 2.462.2-jdk17 2.462.2-jdk21 2.462.2-lts-jdk17 2.462.1-lts-jdk17 2.475
  2.476 2.475-jdk17 2.476-jdk17 2.476-jdk21 2.462.2-alpine-jdk21
`);

const KEYCLOAK = tags(`
  latest nightly 24.0.5 25.0 25.0.5 25.0.6 26.0 26.0.0
`);

const UPTIME_KUMA = tags(`
  latest beta 1 1-debian 1.23.13 1.23.14 1.23.13-debian 1.23.14-debian 2.0.0-beta.0 2.0.0-beta.1
`);

const DOTNET_ASPNET = tags(`
  latest 8.0 8.0-jammy-chiseled 8.0.7 8.0.8 8.0.7-bookworm-slim 8.0.8-bookworm-slim 8.0.8-alpine3.20 8.0.7-jammy-chiseled
  8.0.8-jammy-chiseled 8.0.7-nanoserver-ltsc2022 8.0.8-nanoserver-ltsc2022 8.0.8-nanoserver-1809 9.0-preview
  9.0.0-rc.1-bookworm-slim 9.0.0-rc.1
`);

const checkmk = casesFor('checkmk/check-mk-raw', CHECKMK);
const grafana = casesFor('grafana/grafana', GRAFANA);
const prometheus = casesFor('prom/prometheus', PROMETHEUS);
const minio = casesFor('minio/minio', MINIO);
const gitlab = casesFor('gitlab/gitlab-ce', GITLAB);
const jenkins = casesFor('jenkins/jenkins', JENKINS);
const keycloak = casesFor('quay.io/keycloak/keycloak', KEYCLOAK);
const uptimeKuma = casesFor('louislam/uptime-kuma', UPTIME_KUMA);
const aspnet = casesFor('mcr.microsoft.com/dotnet/aspnet', DOTNET_ASPNET);

export const VENDOR_CASES: readonly TagCase[] = [
  checkmk('patch-level', 'build', '2.3.0p13', to('2.3.0p15', 'patch'), 'brief example: vendor patch level'),
  checkmk('from-ga', 'build', '2.3.0', to('2.3.0p15', 'patch'), 'GA and its pN patches are one line'),
  checkmk('branch', 'policy', '2.2.0p30', to('2.2.0p33', 'patch'), 'include keeps the 2.2 branch', {
    policy: { includeTags: '^2\\.2\\.' },
  }),
  checkmk('beta-leak', 'prerelease', '2.3.0p15', null, '2.4.0b1 is a beta; the daily build is not a version'),
  checkmk('next-release', 'build', '2.3.0p13', to('2.4.0p1', 'minor'), 'new release with its first patch', {
    remoteTags: CHECKMK_LATER,
  }),
  checkmk(
    'branch-latest',
    'variant',
    '2.3.0-latest',
    null,
    '-latest is a rolling per-branch tag; only older branches match',
  ),

  grafana('patch', 'semver', '11.2.0', to('11.2.2', 'patch'), 'not -ubuntu, not -security-01'),
  grafana('ubuntu', 'variant', '11.2.0-ubuntu', to('11.2.2-ubuntu', 'patch'), 'the ubuntu variant stays ubuntu'),
  grafana('ten', 'policy', '10.4.8', to('10.4.9', 'patch'), 'include keeps the 10.x line', {
    policy: { includeTags: '^10\\.' },
  }),
  grafana(
    'security',
    'variant',
    '11.0.1-security-01',
    to('11.2.1-security-01', 'minor'),
    'security builds are a numbered variant',
  ),
  grafana('main', 'rolling', 'main', null, 'a branch tag is watched by digest only'),

  prometheus('minor', 'semver', 'v2.53.0', to('v2.54.1', 'minor'), 'rcs and betas are skipped by a stable tag'),
  prometheus('lts', 'policy', 'v2.53.0', to('v2.53.2', 'patch'), 'include keeps the 2.53 LTS line', {
    policy: { includeTags: '^v2\\.53\\.' },
  }),
  prometheus('rc', 'prerelease', 'v2.54.0-rc.0', to('v2.55.0-rc.0', 'minor'), 'an rc follows rcs; v3 beta is below rc'),
  prometheus('beta', 'prerelease', 'v3.0.0-beta.0', to('v3.0.0-beta.1', 'prerelease'), 'a beta follows the next beta'),
  prometheus('exclude-rc', 'policy', 'v2.54.0-rc.0', to('v2.54.1', 'patch'), 'exclude keeps a tester on releases', {
    policy: { excludeTags: '-(rc|beta)' },
  }),

  minio('no-transform', 'rolling', 'RELEASE.2024-08-03T04-33-23Z', null, 'not a version without a transform'),
  minio(
    'transform',
    'policy',
    'RELEASE.2024-08-03T04-33-23Z',
    to('RELEASE.2024-09-13T20-26-02Z', 'minor'),
    'the transform turns the date into comparable parts',
    {
      policy: { transformTags: MINIO_TRANSFORM },
    },
  ),
  minio(
    'transform-same-month',
    'policy',
    'RELEASE.2024-08-03T04-33-23Z',
    to('RELEASE.2024-08-17T01-24-54Z', 'patch'),
    'a later day of the same month is a patch',
    {
      policy: { transformTags: MINIO_TRANSFORM },
      skipTags: ['RELEASE.2024-09-13T20-26-02Z'],
    },
  ),

  gitlab(
    'ce',
    'variant',
    '17.2.1-ce.0',
    to('17.3.1-ce.0', 'minor'),
    '-ce.0 is a variant with a number; ee and rc excluded',
  ),
  gitlab('pinned', 'policy', '17.1.6-ce.0', null, 'include keeps 17.1 and nothing is newer', {
    policy: { includeTags: '^17\\.1\\.' },
  }),

  jenkins('lts', 'regression', '2.462.1', to('2.462.2', 'patch'), 'three-part LTS never moves to two-part weeklies'),
  jenkins('weekly', 'floating', '2.475', to('2.476', 'minor'), 'the two-part weekly line moves within itself'),
  jenkins(
    'jdk',
    'variant',
    '2.462.1-jdk17',
    to('2.462.2-jdk17', 'patch'),
    'jdk17 stays while published (jdk21 also exists)',
  ),
  jenkins(
    'lts-jdk',
    'variant',
    '2.462.1-lts-jdk17',
    to('2.462.2-lts-jdk17', 'patch'),
    'a two-word variant is matched whole',
  ),
  jenkins(
    'weekly-jdk',
    'variant',
    '2.475-jdk17',
    to('2.476-jdk17', 'minor'),
    'weekly line with the jdk17 variant kept',
  ),

  keycloak('major', 'semver', '25.0.5', to('26.0.0', 'major'), 'the plain three-part family'),
  keycloak('two-part', 'floating', '25.0', to('26.0', 'major'), 'a two-part tag moves to the next two-part tag'),

  uptimeKuma('beta-leak', 'prerelease', '1.23.13', to('1.23.14', 'patch'), 'a stable tag skips 2.0.0-beta.1'),
  uptimeKuma('debian', 'variant', '1.23.13-debian', to('1.23.14-debian', 'patch'), 'the debian variant stays debian'),
  uptimeKuma('beta', 'prerelease', '2.0.0-beta.0', to('2.0.0-beta.1', 'prerelease'), 'a beta follows the next beta'),

  aspnet(
    'bookworm-slim',
    'variant',
    '8.0.7-bookworm-slim',
    to('8.0.8-bookworm-slim', 'patch'),
    'not 9.0.0-rc.1-bookworm-slim',
  ),
  aspnet(
    'chiseled',
    'variant',
    '8.0.7-jammy-chiseled',
    to('8.0.8-jammy-chiseled', 'patch'),
    'the distroless chiseled variant stays itself',
  ),
  aspnet(
    'nanoserver',
    'variant',
    '8.0.7-nanoserver-ltsc2022',
    to('8.0.8-nanoserver-ltsc2022', 'patch'),
    'ltsc2022 stays ltsc2022; -1809 is another variant',
  ),
  aspnet('preview-leak', 'prerelease', '8.0', null, '9.0-preview is a preview channel'),
];
