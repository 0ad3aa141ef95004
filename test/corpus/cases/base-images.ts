import { casesFor, type TagCase, tags, to } from '../tag-case';

const UBUNTU = tags(`
  latest rolling devel noble jammy focal oracular 20.04 22.04 24.04 24.10 noble-20240801 noble-20240827.1 noble-20240904.1
  jammy-20240808 jammy-20240911 focal-20240918 oracular-20240811.1
`);

const DEBIAN = tags(`
  latest stable stable-slim testing sid bookworm bookworm-slim bullseye bullseye-slim trixie 11 11-slim 11.10 11.11 12 12-slim 12.6
  12.7 12.6-slim 12.7-slim bookworm-20240812 bookworm-20240904 bookworm-20240812-slim bookworm-20240904-slim bullseye-20240904
  stable-20240904 trixie-20240904
`);

/** Alpine publishes edge snapshots as bare dates next to its versions. */
const ALPINE = tags(`
  latest edge 3 3.18 3.18.9 3.19 3.19.4 3.20 3.20.2 3.20.3 20240315 20240606 20240807
`);

const ubuntu = casesFor('ubuntu', UBUNTU);
const debian = casesFor('debian', DEBIAN);
const alpine = casesFor('alpine', ALPINE);

export const BASE_IMAGE_CASES: readonly TagCase[] = [
  ubuntu('release', 'calver', '22.04', to('24.10', 'major'), 'YY.MM: the newest release, interim or not'),
  ubuntu('lts-only', 'policy', '22.04', to('24.04', 'major'), 'include keeps LTS releases', {
    policy: { includeTags: '\\.04$' },
  }),
  ubuntu('dated', 'calver', 'jammy-20240808', to('jammy-20240911', 'major'), 'codename prefix, date-stamped snapshot'),
  ubuntu(
    'respin',
    'calver',
    'noble-20240801',
    to('noble-20240904.1', 'major'),
    'a .1 respin continues the date-stamped series',
  ),
  ubuntu(
    'respin-to-respin',
    'calver',
    'noble-20240827.1',
    to('noble-20240904.1', 'major'),
    'a respin moves to a later respin',
  ),
  ubuntu(
    'respin-same-date',
    'calver',
    'oracular-20240811',
    to('oracular-20240811.1', 'minor'),
    'a respin of the same date is newer',
    {
      remoteTags: [...UBUNTU, 'oracular-20240811'],
    },
  ),
  ubuntu('codename', 'rolling', 'noble', null, 'a codename alone is not a version'),

  debian('point', 'semver', '12.6', to('12.7', 'minor'), 'a Debian point release is the minor part'),
  debian('old-stable', 'policy', '11.10', to('11.11', 'minor'), 'include keeps bullseye (11.x)', {
    policy: { includeTags: '^11\\.' },
  }),
  debian('major', 'floating', '11-slim', to('12-slim', 'major'), 'the slim variant moves by major'),
  debian(
    'dated-slim',
    'calver',
    'bookworm-20240812-slim',
    to('bookworm-20240904-slim', 'major'),
    'codename prefix, date stamp, slim variant',
  ),
  debian('stable-dated', 'calver', 'stable-20240904', null, 'stable- has one date here; no jump to bookworm-'),
  debian('codename-slim', 'rolling', 'bookworm-slim', null, 'a codename plus a variant is not a version'),

  alpine('patch', 'semver', '3.20.2', to('3.20.3', 'patch'), 'brief example: a plain patch release'),
  alpine('minor', 'floating', '3.19', to('3.20', 'minor'), 'a two-part tag moves to the next two-part tag'),
  alpine('major-vs-date', 'regression', '3', null, '20240807 is a date stamp, not major 20240807'),
  alpine('date', 'calver', '20240606', to('20240807', 'major'), 'edge snapshots follow each other'),
  alpine('pinned', 'policy', '3.18.9', null, 'include holds 3.18 and it is done', {
    policy: { includeTags: '^3\\.18\\.' },
  }),
  alpine('edge', 'rolling', 'edge', null, 'a channel tag is watched by digest only'),
];
