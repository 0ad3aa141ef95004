/**
 * The unprivileged user a rootless test Podman runs as. scripts/ensure-testbed.mjs creates it (a
 * local user with no home and no login shell, and a range of subordinate uids and gids), and
 * installs `uidmap`, whose setuid newuidmap/newgidmap map that range into Podman's user namespace.
 * The tests run as root and switch to it for the service only.
 */
import { existsSync, readFileSync } from 'node:fs';

/** The same name as ROOTLESS_PODMAN_USER in scripts/ensure-testbed.mjs. */
export const ROOTLESS_USER = 'dockwatch-podman';
const NEWUIDMAP = '/usr/bin/newuidmap';
const INSTALL_HINT = 'run `node scripts/ensure-testbed.mjs` as root';

export interface RootlessUser {
  name: string;
  uid: number;
  gid: number;
}

/** The test user, or an error saying what is missing and how to get it. */
export function rootlessUser(): RootlessUser {
  if (process.getuid?.() !== 0)
    throw new Error('rootless podman test: must run as root, to start the service as the test user');
  if (!existsSync(NEWUIDMAP)) throw new Error(`rootless podman test: ${NEWUIDMAP} not found (uidmap); ${INSTALL_HINT}`);
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === ROOTLESS_USER);
  if (!entry) throw new Error(`rootless podman test: no user ${ROOTLESS_USER}; ${INSTALL_HINT}`);
  const user = { name: ROOTLESS_USER, uid: Number(entry[2]), gid: Number(entry[3]) };
  for (const file of ['/etc/subuid', '/etc/subgid']) {
    if (!hasSubordinateRange(file, user))
      throw new Error(`rootless podman test: ${ROOTLESS_USER} has no range in ${file}; ${INSTALL_HINT}`);
  }
  return user;
}

function hasSubordinateRange(file: string, user: RootlessUser): boolean {
  if (!existsSync(file)) return false;
  return readFileSync(file, 'utf8')
    .split('\n')
    .some((line) => {
      const [owner, , count] = line.split(':');
      return (owner === user.name || owner === String(user.uid)) && Number(count) > 0;
    });
}
