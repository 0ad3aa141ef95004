#!/usr/bin/env node
// Installs the Debian packages the integration and contract tests run for real.
// Runs before node_modules exists, so it uses Node built-ins only.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';

/** One row per tool the tests start themselves; add a tool with one line. */
const REQUIRED = [
  { binary: '/usr/bin/redis-server', pkg: 'redis-server' },
  // The registry test bed: distribution 2.8, htpasswd for bcrypt basic-auth entries, openssl for TLS and token certificates.
  { binary: '/usr/bin/docker-registry', pkg: 'docker-registry' },
  { binary: '/usr/bin/htpasswd', pkg: 'apache2-utils' },
  { binary: '/usr/bin/openssl', pkg: 'openssl' },
];

// Debian's hook for "do not start services from maintainer scripts": without it, installing
// redis-server or docker-registry may start a system daemon (ports 6379, 5000) that no test uses.
const POLICY_RC_D = '/usr/sbin/policy-rc.d';

function run(command, args) {
  const result = spawnSync(command, args, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.error || result.status !== 0) {
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

function main() {
  const missing = REQUIRED.filter((entry) => !existsSync(entry.binary));
  if (missing.length === 0) return 0;

  const packages = [...new Set(missing.map((entry) => entry.pkg))];
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    console.error(`ensure-testbed: missing Debian packages: ${packages.join(', ')}`);
    console.error(`ensure-testbed: run as root, or install them: apt-get install -y --no-install-recommends ${packages.join(' ')}`);
    return 1;
  }

  install(packages);
  const stillMissing = missing.filter((entry) => !existsSync(entry.binary));
  if (stillMissing.length > 0) {
    console.error(`ensure-testbed: installed, but still missing: ${stillMissing.map((entry) => entry.binary).join(', ')}`);
    return 1;
  }
  for (const pkg of packages) console.log(`ensure-testbed: installed ${pkg}`);
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
