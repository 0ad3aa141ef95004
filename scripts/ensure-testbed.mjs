#!/usr/bin/env node
// Installs the Debian packages the integration and contract tests run for real, and unpacks a
// Docker Engine (.testbed/docker-root) and Prometheus's promtool (.testbed/prometheus-root) into the
// work tree without installing them as services, and creates the unprivileged user the rootless
// Podman test runs its service as. Runs before node_modules exists, so it uses Node built-ins only.
// `node scripts/ensure-testbed.mjs prometheus` runs one piece (packages, docker, prometheus,
// podman-user); no argument runs them all.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MULTIARCH = process.arch === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';

/** One row per tool the tests start themselves; add a tool with one line. */
const REQUIRED = [
  { binary: '/usr/bin/redis-server', pkg: 'redis-server' },
  // The registry test bed: distribution 2.8, htpasswd for bcrypt basic-auth entries, openssl for TLS and token certificates.
  { binary: '/usr/bin/docker-registry', pkg: 'docker-registry' },
  { binary: '/usr/bin/htpasswd', pkg: 'apache2-utils' },
  { binary: '/usr/bin/openssl', pkg: 'openssl' },
  // The Docker test bed: dockerd and containerd are unpacked below, and use these from the system:
  // the Depends of docker.io that unpacking does not pull in (runc, iptables for bridge networks,
  // two shared libraries dockerd links against). None of them starts a service.
  { binary: '/usr/sbin/runc', pkg: 'runc' },
  { binary: '/usr/sbin/iptables', pkg: 'iptables' },
  { binary: `/usr/lib/${MULTIARCH}/libdevmapper.so.1.02.1`, pkg: 'libdevmapper1.02.1' },
  { binary: `/usr/lib/${MULTIARCH}/libsystemd.so.0`, pkg: 'libsystemd0' },
  // The Podman watcher's test bed (test/support/podman/start-podman.ts): podman 4.3 (it pulls in conmon,
  // runc and the CNI plugins; no service starts), and catatonit for a pod's infra container, whose
  // pause image podman builds locally with it (the default one would be pulled from a registry).
  { binary: '/usr/bin/podman', pkg: 'podman' },
  { binary: '/usr/bin/catatonit', pkg: 'catatonit' },
  // Rootless Podman (test/support/podman/rootless-user.ts): the setuid newuidmap/newgidmap that map
  // the test user's subordinate ids into its user namespace (podman only Recommends it).
  { binary: '/usr/bin/newuidmap', pkg: 'uidmap' },
  // The root filesystem of test images: one static binary, so an image needs no registry and no libc.
  { binary: '/bin/busybox', pkg: 'busybox-static' },
  // The compose examples (deploy/) are started with it: Debian has Compose v1 only, no `docker compose` plugin.
  { binary: '/usr/bin/docker-compose', pkg: 'docker-compose' },
  // The browser tests drive Chromium's headless shell with playwright-core (Playwright's own browser
  // download is unreachable): the headless build Playwright itself uses, half the CPU of the full browser.
  { binary: '/usr/bin/chromium-headless-shell', pkg: 'chromium-headless-shell' },
  // The SBOM tests build a Go binary (offline, GOPROXY=off) to find its build info in an image.
  { binary: '/usr/bin/go', pkg: 'golang-go' },
  // The rpm cataloguer's tests build real rpm databases: rpm and rpmbuild write SQLite ones, and
  // Berkeley DB's db5.3_load writes the BDB one (Debian's rpm reads BDB but cannot write it).
  { binary: '/usr/bin/rpmbuild', pkg: 'rpm' },
  { binary: '/usr/bin/db5.3_load', pkg: 'db5.3-util' },
  // `npm run lint` checks the workflows' run: scripts and the shell scripts with it (scripts/lint-workflows.mjs).
  { binary: '/usr/bin/shellcheck', pkg: 'shellcheck' },
];

const TESTBED = join(dirname(dirname(fileURLToPath(import.meta.url))), '.testbed');

/**
 * Debian packages unpacked, not installed, each into its own root under .testbed. Docker: Debian's
 * docker.io is dockerd 20.10 (API 1.41); installing would start a system dockerd on
 * /var/run/docker.sock that the tests must never touch; tini provides docker-init. Prometheus: only
 * promtool is used (checking /metrics, the alert rules and their unit tests); installing would start
 * a Prometheus server and pull in its web UI's JavaScript packages.
 */
const UNPACKED = {
  docker: {
    packages: ['docker.io', 'containerd', 'tini'],
    root: join(TESTBED, 'docker-root'),
    binaries: [
      'usr/sbin/dockerd',
      'usr/bin/docker',
      'usr/bin/containerd',
      'usr/bin/containerd-shim-runc-v2',
      'usr/bin/tini-static',
    ],
  },
  prometheus: {
    packages: ['prometheus'],
    root: join(TESTBED, 'prometheus-root'),
    binaries: ['usr/bin/promtool', 'usr/bin/prometheus'],
    // The package's web assets are dangling symlinks to libjs packages, and its console templates are
    // JavaScript that Biome would lint: keep the two Go binaries only.
    binariesOnly: true,
  },
};

// Debian's hook for "do not start services from maintainer scripts": without it, installing
// redis-server or docker-registry may start a system daemon (ports 6379, 5000) that no test uses.
const POLICY_RC_D = '/usr/sbin/policy-rc.d';

function run(command, args, { cwd, quiet = false } = {}) {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.error || result.status !== 0) {
    if (quiet) throw new Error(`ensure-testbed: ${command} ${args.join(' ')} failed`);
    // apt output is only worth showing when it explains a failure.
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    const reason = result.error ? result.error.message : `exit code ${result.status}`;
    throw new Error(`ensure-testbed: ${command} ${args.join(' ')} failed: ${reason}`);
  }
}

function install(packages) {
  const ownPolicy = !existsSync(POLICY_RC_D);
  if (ownPolicy) writeFileSync(POLICY_RC_D, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    run('apt-get', ['update']);
    run('apt-get', ['install', '-y', '--no-install-recommends', ...packages]);
  } finally {
    if (ownPolicy) rmSync(POLICY_RC_D, { force: true });
  }
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

const PIECES = {
  packages: ensurePackages,
  docker: () => ensureUnpacked(UNPACKED.docker),
  prometheus: () => ensureUnpacked(UNPACKED.prometheus),
  'podman-user': ensurePodmanUser,
};

function main(requested) {
  const unknown = requested.filter((name) => !(name in PIECES));
  if (unknown.length > 0) {
    console.error(`ensure-testbed: unknown piece ${unknown.join(', ')}; known: ${Object.keys(PIECES).join(', ')}`);
    return 2;
  }
  for (const name of requested.length > 0 ? requested : Object.keys(PIECES)) {
    const status = PIECES[name]();
    if (status !== 0) return status;
  }
  return 0;
}

function ensurePackages() {
  const missing = REQUIRED.filter((entry) => !existsSync(entry.binary));
  if (missing.length === 0) return 0;

  const packages = [...new Set(missing.map((entry) => entry.pkg))];
  if (!isRoot()) {
    console.error(`ensure-testbed: missing Debian packages: ${packages.join(', ')}`);
    console.error(
      `ensure-testbed: run as root, or install them: apt-get install -y --no-install-recommends ${packages.join(' ')}`,
    );
    return 1;
  }

  install(packages);
  const stillMissing = missing.filter((entry) => !existsSync(entry.binary));
  if (stillMissing.length > 0) {
    console.error(
      `ensure-testbed: installed, but still missing: ${stillMissing.map((entry) => entry.binary).join(', ')}`,
    );
    return 1;
  }
  for (const pkg of packages) console.log(`ensure-testbed: installed ${pkg}`);
  return 0;
}

/** ROOTLESS_USER of test/support/podman/rootless-user.ts. */
const ROOTLESS_PODMAN_USER = 'dockwatch-podman';
const SUBORDINATE_FILES = ['/etc/subuid', '/etc/subgid'];
const SUBORDINATE_COUNT = 65536;
const SUBORDINATE_MIN = 100000;

/** `name:start:count` rows of /etc/subuid or /etc/subgid (none when the file is missing). */
function subordinateRanges(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length === 3)
    .map(([owner, start, count]) => ({ owner, start: Number(start), count: Number(count) }));
}

/**
 * A local user with no home and no login shell, and 65536 subordinate uids and gids (useradd
 * allocates them on Debian; they are added after any range already given when it did not).
 */
function ensurePodmanUser() {
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n');
  const exists = passwd.some((line) => line.startsWith(`${ROOTLESS_PODMAN_USER}:`));
  const ranged = (file) => subordinateRanges(file).some((range) => range.owner === ROOTLESS_PODMAN_USER);
  if (exists && SUBORDINATE_FILES.every(ranged)) return 0;
  if (!isRoot()) {
    console.error(
      `ensure-testbed: the rootless Podman test needs the user ${ROOTLESS_PODMAN_USER} with subordinate ids;`,
    );
    console.error('ensure-testbed: run as root to create it');
    return 1;
  }
  if (!exists) {
    run('useradd', [
      ...['--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin'],
      ...['--comment', 'dockwatch rootless podman tests', ROOTLESS_PODMAN_USER],
    ]);
  }
  for (const [file, option] of [
    [SUBORDINATE_FILES[0], '--add-subuids'],
    [SUBORDINATE_FILES[1], '--add-subgids'],
  ]) {
    if (ranged(file)) continue;
    const start = Math.max(SUBORDINATE_MIN, ...subordinateRanges(file).map((range) => range.start + range.count));
    run('usermod', [option, `${start}-${start + SUBORDINATE_COUNT - 1}`, ROOTLESS_PODMAN_USER]);
  }
  const done = exists ? 'gave subordinate ids to' : 'created';
  console.log(`ensure-testbed: ${done} the rootless Podman test user ${ROOTLESS_PODMAN_USER}`);
  return 0;
}

function download(debs, packages) {
  // As root, apt's download sandbox user (_apt) cannot write into this dir: download as root instead of warning.
  const args = [...(isRoot() ? ['-o', 'APT::Sandbox::User=root'] : []), 'download', ...packages];
  try {
    run('apt-get', args, { cwd: debs, quiet: true });
  } catch {
    // A fresh machine may have no package lists yet (or stale ones naming versions the mirror dropped).
    if (!isRoot())
      throw new Error('ensure-testbed: apt-get download failed; run as root to let it refresh the package lists');
    run('apt-get', ['update']);
    run('apt-get', args, { cwd: debs });
  }
}

/** Leaves only `binaries` under `root` (each moved into a fresh tree that then replaces it). */
function pruneToBinaries(root, binaries) {
  const kept = mkdtempSync(`${root}.kept-`);
  try {
    for (const binary of binaries) {
      mkdirSync(dirname(join(kept, binary)), { recursive: true });
      renameSync(join(root, binary), join(kept, binary));
    }
    rmSync(root, { recursive: true, force: true });
    renameSync(kept, root);
  } finally {
    rmSync(kept, { recursive: true, force: true });
  }
}

function ensureUnpacked({ packages, root: target, binaries, binariesOnly = false }) {
  if (binaries.every((binary) => existsSync(join(target, binary)))) {
    // A root unpacked whole by an earlier version of this script.
    if (binariesOnly && existsSync(join(target, 'usr', 'share'))) pruneToBinaries(target, binaries);
    return 0;
  }
  // Unpacked into a sibling first and renamed at the end, so an interrupted run never leaves a
  // half-filled root that the check above would take for complete.
  mkdirSync(dirname(target), { recursive: true });
  const staging = mkdtempSync(`${target}.partial-`);
  try {
    const debs = join(staging, 'debs');
    const root = join(staging, 'root');
    mkdirSync(debs);
    mkdirSync(root);
    download(debs, packages);
    for (const deb of readdirSync(debs).filter((name) => name.endsWith('.deb')))
      run('dpkg', ['-x', join(debs, deb), root]);
    if (binariesOnly) pruneToBinaries(root, binaries);
    rmSync(target, { recursive: true, force: true });
    renameSync(root, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const missing = binaries.filter((binary) => !existsSync(join(target, binary)));
  if (missing.length > 0) {
    console.error(`ensure-testbed: unpacked ${packages.join(', ')}, but still missing: ${missing.join(', ')}`);
    return 1;
  }
  console.log(`ensure-testbed: unpacked ${packages.join(', ')} into ${target}`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
