import { casesFor, type TagCase, tags, to } from '../tag-case';

// linuxserver.io: `<upstream>-ls<N>` where N counts their rebuilds, `version-<upstream>` floating per
// upstream release, arch-prefixed copies, and branch prefixes such as `develop-`.
const SONARR = tags(`
  latest develop 4.0.8.1874-ls249 4.0.9.2244-ls254 4.0.9.2244-ls255 4.0.9.2244-ls256 4.0.10.2544-ls257 version-4.0.9.2244
  version-4.0.10.2544 develop-4.0.10.2600-ls150 develop-4.0.10.2610-ls151 amd64-4.0.10.2544-ls257 arm64v8-latest
`);

const LSIO_PLEX = tags(`
  latest amd64-latest 1.40.4.8679-424562606-ls226 1.40.5.8854-f36c552fd-ls229 1.41.0.8992-8463ad060-ls237
  1.41.0.8992-8463ad060-ls238 1.41.1.9057-af5eaea7a-ls240 version-1.41.0.8992-8463ad060 version-1.41.1.9057-af5eaea7a
  amd64-1.41.1.9057-af5eaea7a-ls240 arm64v8-1.41.1.9057-af5eaea7a-ls240
`);

const QBITTORRENT = tags(`
  latest libtorrentv1 4.6.5-r0-ls340 4.6.6-r0-ls344 4.6.7-r0-ls350 4.6.7-r1-ls351 5.0.0-r0-ls352 version-4.6.7-r1 version-5.0.0-r0
`);

const LSIO_JELLYFIN = tags(`
  latest nightly 10.8.13ubu2204-ls88 10.9.10ubu2404-ls31 10.9.11ubu2404-ls33 10.9.11ubu2404-ls34 version-10.9.11ubu2404
`);

const CODE_SERVER = tags(`
  latest 4.91.1-ls227 4.92.2-ls228 4.92.2-ls229 4.93.1-ls230 version-4.92.2 version-4.93.1
`);

const HEIMDALL = tags(`
  latest v2.6.1-ls265 v2.6.1-ls266 v2.6.3-ls267 version-v2.6.3 development
`);

const sonarr = casesFor('lscr.io/linuxserver/sonarr', SONARR);
const plex = casesFor('lscr.io/linuxserver/plex', LSIO_PLEX);
const qbittorrent = casesFor('lscr.io/linuxserver/qbittorrent', QBITTORRENT);
const jellyfin = casesFor('lscr.io/linuxserver/jellyfin', LSIO_JELLYFIN);
const codeServer = casesFor('lscr.io/linuxserver/code-server', CODE_SERVER);
const heimdall = casesFor('lscr.io/linuxserver/heimdall', HEIMDALL);

export const LINUXSERVER_CASES: readonly TagCase[] = [
  sonarr('upstream', 'build', '4.0.9.2244-ls254', to('4.0.10.2544-ls257', 'patch'), 'four-part upstream plus ls build'),
  sonarr(
    'rebuild',
    'build',
    '4.0.9.2244-ls255',
    to('4.0.9.2244-ls256', 'patch'),
    'a newer ls build of the same upstream',
    {
      skipTags: ['4.0.10.2544-ls257'],
    },
  ),
  sonarr(
    'version-prefix',
    'floating',
    'version-4.0.9.2244',
    to('version-4.0.10.2544', 'patch'),
    'the version- prefix is a family of its own',
  ),
  sonarr(
    'develop',
    'build',
    'develop-4.0.10.2600-ls150',
    to('develop-4.0.10.2610-ls151', 'patch'),
    'branch prefix is its own family',
  ),
  sonarr('arch-prefix', 'rolling', 'amd64-4.0.10.2544-ls257', null, 'arch-prefixed tags are watched by digest'),
  sonarr('latest', 'rolling', 'latest', null, 'a rolling tag is watched by digest only'),

  plex(
    'rebuild',
    'build',
    '1.41.0.8992-8463ad060-ls237',
    to('1.41.1.9057-af5eaea7a-ls240', 'patch'),
    'the hash carries no order; the ls build is kept',
  ),
  plex(
    'ls-only',
    'build',
    '1.41.0.8992-8463ad060-ls237',
    to('1.41.0.8992-8463ad060-ls238', 'patch'),
    'same upstream release, newer ls build',
    {
      skipTags: ['1.41.1.9057-af5eaea7a-ls240'],
    },
  ),
  plex(
    'digit-hash',
    'build',
    '1.40.4.8679-424562606-ls226',
    to('1.41.1.9057-af5eaea7a-ls240', 'minor'),
    'an all-digit hash followed by an ls build',
  ),
  plex(
    'version-prefix',
    'floating',
    'version-1.41.0.8992-8463ad060',
    to('version-1.41.1.9057-af5eaea7a', 'patch'),
    'version- prefix with a four-part release and a hash',
  ),

  qbittorrent('major', 'build', '4.6.5-r0-ls340', to('5.0.0-r0-ls352', 'major'), 'revision and ls build both ordered'),
  qbittorrent(
    'revision',
    'policy',
    '4.6.7-r0-ls350',
    to('4.6.7-r1-ls351', 'patch'),
    'a package revision of one upstream',
    {
      policy: { includeTags: '^4\\.' },
    },
  ),
  qbittorrent(
    'version-prefix',
    'floating',
    'version-4.6.7-r1',
    to('version-5.0.0-r0', 'major'),
    'version- prefix with revision',
  ),
  qbittorrent('branch', 'rolling', 'libtorrentv1', null, 'a branch name with a digit is not a version'),

  jellyfin(
    'glued-base',
    'variant',
    '10.9.10ubu2404-ls31',
    to('10.9.11ubu2404-ls34', 'patch'),
    'glued ubu2404 is a variant',
  ),
  jellyfin(
    'base-forward',
    'variant',
    '10.8.13ubu2204-ls88',
    to('10.9.11ubu2404-ls34', 'minor'),
    'new release on the new Ubuntu base',
  ),
  jellyfin(
    'version-prefix',
    'floating',
    'version-10.9.10ubu2404',
    to('version-10.9.11ubu2404', 'patch'),
    'version- with a glued variant',
  ),

  codeServer(
    'minor',
    'build',
    '4.91.1-ls227',
    to('4.93.1-ls230', 'minor'),
    'ls numbers never beat the upstream version',
  ),
  codeServer('rebuild', 'build', '4.92.2-ls228', to('4.92.2-ls229', 'patch'), 'rebuild reported as patch', {
    skipTags: ['4.93.1-ls230'],
  }),
  codeServer(
    'version-prefix',
    'floating',
    'version-4.92.2',
    to('version-4.93.1', 'minor'),
    'version- floats per upstream release',
  ),
  codeServer('plain-not-ls', 'regression', '4.92.2', null, 'a plain tag never moves to -ls builds (none plain exist)'),

  heimdall('v-and-ls', 'build', 'v2.6.1-ls265', to('v2.6.3-ls267', 'patch'), 'v prefix and ls together'),
  heimdall(
    'version-v',
    'floating',
    'version-v2.6.1',
    to('version-v2.6.3', 'patch'),
    'a version-v prefix is a family of its own',
    {
      remoteTags: [...HEIMDALL, 'version-v2.6.1'],
    },
  ),
];
