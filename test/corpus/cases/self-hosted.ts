import { casesFor, type TagCase, tags, to } from '../tag-case';

const HOME_ASSISTANT = tags(`
  latest stable beta dev rc 2023.12.4 2024.8.3 2024.9 2024.9.0 2024.9.1 2024.9.2 2024.9.3 2024.10 2024.10.0 2024.10.1 2024.10.2
  2024.10.3 2024.10.4 2024.10.0b0 2024.10.0b3 2024.10.0b7 2024.11.0b0 2024.11.0.dev202410070246 2024.11.0.dev202410080235
`);

const PIHOLE = tags(`
  latest nightly development dev v5.8 v5.8.1 2022.12.1 2023.10.0 2023.11.0 2024.02.2 2024.03.2 2024.05.0 2024.06.0 2024.07.0
`);

/** plexinc/pms-docker: four parts and a short git hash; 424562606 is a hash that happens to be all digits. */
const PLEX = tags(`
  latest public beta plexpass 1.32.8.7639-fb6452ebf 1.40.1.8227-c0dd5a73e 1.40.2.8395-c67dce28e 1.40.3.8555-fef15d30c
  1.40.4.8679-424562606 1.40.5.8854-f36c552fd 1.41.0.8992-8463ad060 1.41.1.9057-af5eaea7a
`);

const JELLYFIN = tags(`
  latest unstable unstable-amd64 10 10.8 10.8.13 10.9 10.9.7 10.9.7-amd64 10.9.8 10.9.9 10.9.10 10.9.11 10.9.11-amd64 10.9.11-arm64
  2024091605 2024091605-amd64 2024092305 2024092305-amd64
`);

const ADGUARD = tags(`
  latest edge beta v0.107.0 v0.107.50 v0.107.51 v0.107.52 v0.107.53 v0.108.0-b.1 v0.108.0-b.2
`);

const IMMICH = tags(`
  release main v1 v1.114 v1.106.4 v1.110.0 v1.111.0 v1.112.0 v1.112.1 v1.113.0 v1.113.1 v1.114.0 pr-12345 pr-12400
  commit-3b1e0c4f9a2d1e5b7c8d9e0f1a2b3c4d5e6f7a8b
`);

const MOSQUITTO = tags(`
  latest openssl 1.6 1.6-openssl 1.6.15 1.6.15-openssl 2 2-openssl 2.0 2.0-openssl 2.0.18 2.0.18-openssl 2.0.19 2.0.19-openssl
  2.0.20 2.0.20-openssl
`);

const VAULTWARDEN = tags(`
  latest alpine testing testing-alpine 1.30.5 1.30.5-alpine 1.31.0 1.31.0-alpine 1.32.0 1.32.0-alpine 1.32.1 1.32.1-alpine 1.32.2
  1.32.2-alpine
`);

const GITEA = tags(`
  latest latest-rootless nightly nightly-rootless dev 1 1-rootless 1.21 1.21-rootless 1.21.11 1.21.11-rootless 1.22 1.22-rootless
  1.22.0 1.22.1 1.22.1-rootless 1.22.2 1.22.2-rootless 1.22.3 1.22.3-rootless 1.23-nightly 1.23-nightly-rootless
`);

const ACT_RUNNER = tags(`
  latest nightly latest-dind latest-dind-rootless 0.2.10 0.2.10-dind 0.2.10-dind-rootless 0.2.11 0.2.11-dind 0.2.11-dind-rootless
`);

const homeAssistant = casesFor('ghcr.io/home-assistant/home-assistant', HOME_ASSISTANT);
const pihole = casesFor('pihole/pihole', PIHOLE);
const plex = casesFor('plexinc/pms-docker', PLEX);
const jellyfin = casesFor('jellyfin/jellyfin', JELLYFIN);
const adguard = casesFor('adguard/adguardhome', ADGUARD);
const immich = casesFor('ghcr.io/immich-app/immich-server', IMMICH);
const mosquitto = casesFor('eclipse-mosquitto', MOSQUITTO);
const vaultwarden = casesFor('vaultwarden/server', VAULTWARDEN);
const gitea = casesFor('gitea/gitea', GITEA);
const actRunner = casesFor('gitea/act_runner', ACT_RUNNER);

export const SELF_HOSTED_CASES: readonly TagCase[] = [
  homeAssistant('patch', 'calver', '2024.10.1', to('2024.10.4', 'patch'), 'not 2024.11.0b0, not .dev builds'),
  homeAssistant('month', 'calver', '2024.9.3', to('2024.10.4', 'minor'), 'the month is the minor part'),
  homeAssistant('year', 'calver', '2023.12.4', to('2024.10.4', 'major'), 'the year is the major part'),
  homeAssistant('two-part', 'calver', '2024.9', to('2024.10', 'minor'), 'brief example: CalVer two-part'),
  homeAssistant(
    'beta',
    'prerelease',
    '2024.10.0b3',
    to('2024.11.0b0', 'minor'),
    'a beta tracker follows the newest beta',
  ),
  homeAssistant('stable', 'rolling', 'stable', null, 'a channel tag is watched by digest only'),
  homeAssistant('dev', 'rolling', 'dev', null, 'a channel tag is watched by digest only'),

  pihole('zero-padded', 'calver', '2024.05.0', to('2024.07.0', 'minor'), 'zero-padded months compare as numbers'),
  pihole('year', 'calver', '2023.10.0', to('2024.07.0', 'major'), 'a year change is a major difference'),
  pihole('old-scheme', 'regression', 'v5.8.1', null, 'v5 tags never jump to the CalVer scheme (other prefix)'),
  pihole('nightly', 'rolling', 'nightly', null, 'a channel tag is watched by digest only'),

  plex(
    'hash',
    'build',
    '1.40.1.8227-c0dd5a73e',
    to('1.41.1.9057-af5eaea7a', 'minor'),
    'four parts; the hash carries no order',
  ),
  plex(
    'digit-hash',
    'build',
    '1.40.4.8679-424562606',
    to('1.41.1.9057-af5eaea7a', 'minor'),
    'an all-digit hash is still a hash',
  ),
  plex(
    'to-digit-hash',
    'build',
    '1.40.3.8555-fef15d30c',
    to('1.40.4.8679-424562606', 'patch'),
    'an all-digit hash can also be the answer',
    {
      policy: { excludeTags: '^1\\.(40\\.5|41)\\.' },
    },
  ),
  plex(
    'build-part',
    'build',
    '1.41.0.8992-8463ad060',
    to('1.41.1.9057-af5eaea7a', 'patch'),
    'parts past the third are patch level',
  ),
  plex('plexpass', 'rolling', 'plexpass', null, 'a channel tag is watched by digest only'),
  plex('public', 'rolling', 'public', null, 'a channel tag is watched by digest only'),

  jellyfin('numeric-patch', 'semver', '10.9.7', to('10.9.11', 'patch'), '11 > 9; date-stamped unstable builds ignored'),
  jellyfin('one-part', 'regression', '10', null, '2024091605 is a date stamp, not major 2024091605'),
  jellyfin('two-part', 'floating', '10.8', to('10.9', 'minor'), 'a two-part tag moves to the next two-part tag'),
  jellyfin('date-stamp', 'calver', '2024091605', to('2024092305', 'major'), 'a single date part: any change is major'),
  jellyfin('arch', 'variant', '10.9.7-amd64', to('10.9.11-amd64', 'patch'), 'an architecture suffix is a variant'),
  jellyfin('unstable', 'rolling', 'unstable', null, 'a channel tag is watched by digest only'),

  adguard('zero-major', 'semver', 'v0.107.51', to('v0.107.53', 'patch'), 'v0.x: position decides the level'),
  adguard('beta', 'prerelease', 'v0.108.0-b.1', to('v0.108.0-b.2', 'prerelease'), '`-b.N` is AdGuard’s beta'),
  adguard('beta-leak', 'prerelease', 'v0.107.53', null, 'v0.108.0-b.2 is a beta; a stable tag never moves to it'),
  adguard('edge', 'rolling', 'edge', null, 'a channel tag is watched by digest only'),

  immich('minor', 'semver', 'v1.111.0', to('v1.114.0', 'minor'), 'v prefix kept; pr- and commit- tags ignored'),
  immich('skip', 'policy', 'v1.113.0', to('v1.113.1', 'patch'), 'a skipped tag is passed over', {
    skipTags: ['v1.114.0'],
  }),
  immich('two-part', 'floating', 'v1.113', to('v1.114', 'minor'), 'a prefixed two-part tag moves to the next one', {
    remoteTags: [...IMMICH, 'v1.113'],
  }),
  immich('pr', 'rolling', 'pr-12345', null, 'a pull-request number is an identifier'),
  immich('release', 'rolling', 'release', null, 'a channel tag is watched by digest only'),

  mosquitto(
    'openssl',
    'variant',
    '2.0.18-openssl',
    to('2.0.20-openssl', 'patch'),
    'brief example: the -openssl variant is kept',
  ),
  mosquitto('plain', 'semver', '2.0.18', to('2.0.20', 'patch'), 'plain does not become -openssl'),
  mosquitto('major', 'variant', '1.6.15-openssl', to('2.0.20-openssl', 'major'), 'across majors in the variant'),
  mosquitto(
    'openssl-floating',
    'floating',
    '1.6-openssl',
    to('2.0-openssl', 'major'),
    'a two-part tag with a variant moves by major',
  ),

  vaultwarden('minor', 'semver', '1.30.5', to('1.32.2', 'minor'), 'the plain family ignores -alpine'),
  vaultwarden('alpine', 'variant', '1.32.0-alpine', to('1.32.2-alpine', 'patch'), 'the alpine variant stays alpine'),
  vaultwarden('skip', 'policy', '1.32.0', to('1.32.1', 'patch'), 'a skipped tag leaves the next best', {
    skipTags: ['1.32.2'],
  }),
  vaultwarden('testing', 'rolling', 'testing-alpine', null, 'a channel plus a variant is still not a version'),

  gitea(
    'rootless',
    'variant',
    '1.22.1-rootless',
    to('1.22.3-rootless', 'patch'),
    'brief example: -rootless stays -rootless',
  ),
  gitea('plain', 'variant', '1.22.1', to('1.22.3', 'patch'), 'plain does not become rootless'),
  gitea('nightly-leak', 'prerelease', '1.22', null, '1.23-nightly is a prerelease channel'),
  gitea('rootless-floating', 'floating', '1.21-rootless', to('1.22-rootless', 'minor'), 'not 1.23-nightly-rootless'),
  gitea('one-part', 'floating', '1', null, 'nothing above 1 in its one-part family'),
  gitea('nightly', 'prerelease', '1.23-nightly', null, 'a nightly only follows nightlies; none newer'),

  actRunner('plain', 'regression', '0.2.10', to('0.2.11', 'patch'), 'not 0.2.11-dind-rootless'),
  actRunner(
    'dind-rootless',
    'variant',
    '0.2.10-dind-rootless',
    to('0.2.11-dind-rootless', 'patch'),
    '-dind-rootless is one variant, -dind another',
  ),
];
