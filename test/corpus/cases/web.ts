import { casesFor, type TagCase, tags, to } from '../tag-case';

// Snapshots of real repositories (autumn 2024), trimmed to the tags that matter.
const NGINX = tags(`
  latest mainline stable alpine alpine-slim perl alpine-perl bookworm mainline-alpine stable-alpine stable-alpine3.20
  mainline-alpine3.20-slim 1 1-alpine 1.27 1.27-alpine 1.27-alpine3.20 1.27.0 1.27.1 1.27.2 1.27.3 1.27.2-alpine 1.27.3-alpine
  1.27.3-alpine3.20 1.27.2-alpine-slim 1.27.3-alpine-slim 1.27.3-alpine3.20-slim 1.27.3-perl 1.27.3-alpine-perl 1.27.3-bookworm
  1.27.3-bookworm-perl 1.27.3-otel 1.27.2-otel 1.26 1.26-alpine 1.26.1 1.26.2 1.26.2-alpine 1.26.2-alpine3.20 1.26.2-perl
  1.26.1-perl 1.25 1.25-alpine 1.25.5 1.25.5-alpine 1.25-alpine3.19 1.25.5-alpine3.19
`);

const CADDY = tags(`
  latest alpine builder builder-alpine windowsservercore-ltsc2022 2 2-alpine 2-builder 2-builder-alpine 2.7 2.7-alpine 2.7.6
  2.7.6-alpine 2.8 2.8-alpine 2.8.1 2.8.1-alpine 2.8.4 2.8.4-alpine 2.8.4-builder 2.8.4-builder-alpine
  2.8.4-windowsservercore-ltsc2022 2.9.0-beta.2 2.9.0-beta.2-alpine 2.9.0-beta.2-builder 2.9.0-beta.3 2.9.0-beta.3-alpine
`);

const TRAEFIK = tags(`
  latest comte mimolette v3 v3.0 v3.1 v3.0.4 v3.1.0 v3.1.1 v3.1.2 v3.1.3 v3.1.2-windowsservercore-ltsc2022
  v3.1.3-windowsservercore-ltsc2022 v3.1.3-nanoserver-ltsc2022 3 3.1 3.1.2 3.1.3 v3.2.0-rc1 v3.2.0-rc2 3.2.0-rc2 v2 v2.10 v2.11
  v2.10.7 v2.11.8 v2.11.9 2.11 2.11.9
`);

const PHP = tags(`
  latest cli fpm apache fpm-alpine zts 8 8-fpm-alpine 8.2 8.2-fpm-alpine 8.2.23 8.2.23-fpm-alpine 8.3 8.3-fpm 8.3-fpm-alpine
  8.3-fpm-alpine3.20 8.3-apache 8.3-cli 8.3-zts 8.3-cli-alpine 8.3-fpm-bookworm 8.3.10 8.3.10-fpm-alpine 8.3.10-fpm-alpine3.19
  8.3.10-fpm-alpine3.20 8.3.11 8.3.11-fpm-alpine 8.3.11-fpm-alpine3.20 8.3.11-apache 8.3.11-apache-bookworm 8.3.12
  8.3.12-fpm-alpine 8.3.12-fpm-alpine3.20 8.3.12-apache 8.3.12-apache-bookworm 8.4-rc 8.4-rc-fpm-alpine 8.4.0RC1
  8.4.0RC1-fpm-alpine 8.4.0RC2-fpm-alpine 8.1.30-fpm-alpine
`);

const NEXTCLOUD = tags(`
  latest stable production apache fpm fpm-alpine stable-apache production-fpm-alpine 28 28-apache 28-fpm-alpine 28.0.9
  28.0.9-apache 28.0.9-fpm 28.0.9-fpm-alpine 29 29.0 29-apache 29-fpm 29-fpm-alpine 29.0-apache 29.0-fpm-alpine 29.0.4
  29.0.4-apache 29.0.4-fpm 29.0.4-fpm-alpine 29.0.6 29.0.6-apache 29.0.6-fpm 29.0.6-fpm-alpine 30 30-apache 30-fpm-alpine 30.0.0
  30.0.0-apache 30.0.0-fpm 30.0.0-fpm-alpine 30.0.0rc2 30.0.0rc2-apache 30.0.0beta5-fpm-alpine
`);

const PORTAINER = tags(`
  latest lts sts alpine linux-amd64 2.19.4 2.19.5 2.20.3 2.20.3-alpine 2.21.0 2.21.0-alpine 2.21.1 2.21.2 2.21.2-alpine
  2.21.0-linux-amd64 2.21.2-linux-amd64 2.21.2-windows1809-amd64 linux-amd64-2.21.2 linux-arm64-2.21.2
`);

const nginx = casesFor('nginx', NGINX);
const caddy = casesFor('caddy', CADDY);
const traefik = casesFor('traefik', TRAEFIK);
const php = casesFor('php', PHP);
const nextcloud = casesFor('nextcloud', NEXTCLOUD);
const portainer = casesFor('portainer/portainer-ce', PORTAINER);

export const WEB_CASES: readonly TagCase[] = [
  nginx(
    'patch',
    'semver',
    '1.27.2',
    to('1.27.3', 'patch'),
    'plain three-part family; no suffix variant is a candidate',
  ),
  nginx(
    'stable-to-mainline',
    'semver',
    '1.26.2',
    to('1.27.3', 'minor'),
    'nginx stable and mainline share one numbering; highest wins',
  ),
  nginx('stable-pinned', 'policy', '1.26.1', to('1.26.2', 'patch'), 'include pins the stable branch', {
    policy: { includeTags: '^1\\.26\\.' },
  }),
  nginx(
    'two-part',
    'floating',
    '1.26',
    to('1.27', 'minor'),
    'two-part tag moves to the next two-part tag, not to 1.27.3',
  ),
  nginx('two-part-alpine', 'floating', '1.26-alpine', to('1.27-alpine', 'minor'), 'floating alpine tag stays alpine'),
  nginx('one-part', 'floating', '1', null, '`1` is the newest one-part tag'),
  nginx(
    'alpine',
    'variant',
    '1.27.2-alpine',
    to('1.27.3-alpine', 'patch'),
    '-alpine stays -alpine, not -alpine3.20 or -alpine-slim',
  ),
  nginx(
    'alpine-slim',
    'variant',
    '1.27.2-alpine-slim',
    to('1.27.3-alpine-slim', 'patch'),
    'two-word variant is matched whole',
  ),
  nginx(
    'perl',
    'variant',
    '1.26.1-perl',
    to('1.27.3-perl', 'minor'),
    '-perl does not jump to -alpine-perl or -bookworm-perl',
  ),
  nginx('otel', 'variant', '1.27.2-otel', to('1.27.3-otel', 'patch'), 'module variant -otel stays itself'),
  nginx(
    'alpine-base-forward',
    'variant',
    '1.25.5-alpine3.19',
    to('1.27.3-alpine3.20', 'minor'),
    'alpine3.19 builds stopped; the family continues on alpine3.20',
  ),
  nginx('mainline', 'rolling', 'mainline', null, 'a channel name is watched by digest'),
  nginx('stable-alpine', 'rolling', 'stable-alpine', null, 'channel plus variant is still not a version'),
  nginx('stable-alpine3.20', 'rolling', 'stable-alpine3.20', null, 'the only number names the base image, not nginx'),

  caddy('alpine', 'variant', '2.8.1-alpine', to('2.8.4-alpine', 'patch'), 'stable alpine ignores 2.9.0-beta.3-alpine'),
  caddy('two-part-alpine', 'floating', '2.7-alpine', to('2.8-alpine', 'minor'), 'floating minor with variant'),
  caddy('plain', 'semver', '2.7.6', to('2.8.4', 'minor'), 'plain tag ignores -builder and -windowsservercore'),
  caddy(
    'beta-alpine',
    'prerelease',
    '2.9.0-beta.2-alpine',
    to('2.9.0-beta.3-alpine', 'prerelease'),
    'a beta follows newer betas of its variant',
  ),
  caddy('one-part-alpine', 'floating', '2-alpine', null, 'nothing above 2-alpine in its one-part family'),
  caddy('builder-alpine', 'rolling', 'builder-alpine', null, 'a variant name without a version: digest only'),

  traefik('v-patch', 'semver', 'v3.1.2', to('v3.1.3', 'patch'), 'keeps the v prefix; the rc of 3.2 is not offered'),
  traefik('no-v-patch', 'semver', '3.1.2', to('3.1.3', 'patch'), 'the unprefixed family does not switch to v'),
  traefik(
    'v-two-part',
    'floating',
    'v3.0',
    to('v3.1', 'minor'),
    'a prefixed two-part tag moves to the next v-prefixed two-part tag',
  ),
  traefik('v-major', 'floating', 'v2', to('v3', 'major'), 'a prefixed one-part tag moves by major'),
  traefik('v2-line', 'policy', 'v2.11.8', to('v2.11.9', 'patch'), 'include keeps the v2 line', {
    policy: { includeTags: '^v2\\.' },
  }),
  traefik('v2-unpinned', 'semver', 'v2.11.8', to('v3.1.3', 'major'), 'without a policy the newest major is reported'),
  traefik(
    'rc',
    'prerelease',
    'v3.2.0-rc1',
    to('v3.2.0-rc2', 'prerelease'),
    'an rc follows newer rcs of the same release line',
  ),
  traefik(
    'windows',
    'variant',
    'v3.1.2-windowsservercore-ltsc2022',
    to('v3.1.3-windowsservercore-ltsc2022', 'patch'),
    'windows variant not nanoserver',
  ),
  traefik('codename', 'rolling', 'comte', null, 'release codename is not a version'),

  php('fpm-alpine-floating', 'prerelease', '8.3-fpm-alpine', null, '8.4-rc-fpm-alpine is a prerelease'),
  php(
    'fpm-alpine',
    'variant',
    '8.3.10-fpm-alpine',
    to('8.3.12-fpm-alpine', 'patch'),
    'two-word variant, not -fpm-alpine3.20',
  ),
  php(
    'fpm-alpine-base',
    'variant',
    '8.3.10-fpm-alpine3.19',
    to('8.3.12-fpm-alpine3.20', 'patch'),
    'versioned alpine moves forward',
  ),
  php(
    'minor-floating',
    'floating',
    '8.2-fpm-alpine',
    to('8.3-fpm-alpine', 'minor'),
    'not 8.3-fpm-alpine3.20, not 8.4-rc-fpm-alpine',
  ),
  php('apache', 'variant', '8.3.11-apache', to('8.3.12-apache', 'patch'), '-apache is not -apache-bookworm'),
  php(
    'uppercase-rc',
    'prerelease',
    '8.4.0RC1-fpm-alpine',
    to('8.4.0RC2-fpm-alpine', 'prerelease'),
    'PHP spells RC in capitals',
  ),
  php('channel', 'rolling', 'fpm-alpine', null, 'variant without a version'),

  nextcloud(
    'apache-major',
    'variant',
    '29.0.4-apache',
    to('30.0.0-apache', 'major'),
    'apache variant, rc and beta ignored',
  ),
  nextcloud(
    'apache-pinned',
    'policy',
    '29.0.4-apache',
    to('29.0.6-apache', 'patch'),
    'include holds the major; the variant is kept',
    {
      policy: { includeTags: '^29\\.' },
    },
  ),
  nextcloud(
    'fpm-alpine-floating',
    'floating',
    '29-fpm-alpine',
    to('30-fpm-alpine', 'major'),
    'brief example: one-part fpm-alpine',
  ),
  nextcloud('fpm', 'variant', '29.0.4-fpm', to('30.0.0-fpm', 'major'), '-fpm is one variant, -fpm-alpine another'),
  nextcloud('old-major-pinned', 'policy', '28.0.9', null, 'include ^28 leaves nothing newer', {
    policy: { includeTags: '^28\\.' },
  }),
  nextcloud(
    'rc',
    'prerelease',
    '30.0.0rc2-apache',
    to('30.0.0-apache', 'prerelease'),
    'an rc moves to its final release',
  ),
  nextcloud(
    'skip',
    'policy',
    '29.0.4-fpm-alpine',
    to('29.0.6-fpm-alpine', 'patch'),
    'a skipped major leaves the next best',
    {
      skipTags: ['30.0.0-fpm-alpine'],
    },
  ),
  nextcloud('channel', 'rolling', 'production-fpm-alpine', null, 'a channel plus a variant is still not a version'),

  portainer(
    'minor',
    'semver',
    '2.19.4',
    to('2.21.2', 'minor'),
    'the plain family ignores -alpine and platform suffixes',
  ),
  portainer('alpine', 'variant', '2.20.3-alpine', to('2.21.2-alpine', 'minor'), 'the alpine variant stays alpine'),
  portainer(
    'platform-suffix',
    'variant',
    '2.21.0-linux-amd64',
    to('2.21.2-linux-amd64', 'patch'),
    'platform suffix is a variant',
  ),
  portainer('lts', 'rolling', 'lts', null, 'a channel tag is watched by digest only'),
  portainer(
    'platform-prefix',
    'rolling',
    'linux-amd64-2.21.2',
    null,
    'a prefix with digits is not a version prefix: digest only',
  ),
];
