/**
 * Debian's docker-compose (Compose v1, 1.29; scripts/ensure-testbed.mjs installs it) against a test
 * dockerd: the deploy/ examples are started with it as a user starts them, their image names and
 * host paths given through the variables each example reads.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../run-command';
import { type CliResult, DOCKER_ROOT, type TestDockerd } from './start-dockerd';

export const DOCKER_COMPOSE = '/usr/bin/docker-compose';

export interface ComposeProject {
  name: string;
  run(args: string[]): Promise<string>;
  /** `down -v`: containers, networks and volumes of the project. */
  down(): Promise<void>;
}

export function composeProject(
  dockerd: TestDockerd,
  name: string,
  files: string[],
  variables: Record<string, string>,
): ComposeProject {
  const home = mkdtempSync(join(tmpdir(), 'dockwatch-compose-home-'));
  const base = ['-p', name, ...files.flatMap((file) => ['-f', file]), '--ansi', 'never'];
  const run = async (args: string[]) => {
    const result = await spawnCompose([...base, ...args], {
      // `run` hands the container over to the docker CLI: the unpacked one, never the host's.
      PATH: `${join(DOCKER_ROOT, 'usr/bin')}:/usr/bin:/bin`,
      HOME: home,
      DOCKER_HOST: `unix://${dockerd.socketPath}`,
      ...variables,
    });
    if (result.code !== 0) throw new Error(`docker-compose ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
    return result.stdout.trim();
  };
  return {
    name,
    run,
    async down() {
      try {
        await run(['down', '-v', '--timeout', '10']);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}

function spawnCompose(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runCommand(DOCKER_COMPOSE, args, { env });
}
