/**
 * One version everywhere: package.json's is what `--version` of the hub and of the edge agent print
 * (their real entries, as `npm start` and `npm run agent` run them), what GET /api/v1/app and the
 * OpenAPI document's info.version answer on a running hub, and what the Dockerfile labels the images
 * with and the changelog has a section for (scripts/version.mjs keeps the last two in step on
 * `npm version`; the release workflow refuses a tag that names another).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changelogSection } from '../../scripts/changelog.mjs';
import { type HubProcess, REPO_ROOT, startHubProcess } from '../support/hub-process';
import { runCommand } from '../support/run-command';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** An entry run the way `npm start` / `npm run agent` run it, with only PATH and HOME inherited. */
async function printedVersion(entry: string): Promise<string> {
  const result = await runCommand(process.execPath, ['--import', 'tsx', entry, '--version'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' },
  });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

describe("package.json's version", () => {
  let hub: HubProcess;

  beforeAll(async () => {
    hub = await startHubProcess({ DD_STORE_DRIVER: 'memory' });
  }, 60_000);

  afterAll(async () => {
    await hub?.kill();
  });

  it('is what the hub and the edge agent print for --version', async () => {
    const [hubVersion, agentVersion] = await Promise.all([
      printedVersion(join('hub', 'src', 'entry', 'node.ts')),
      printedVersion(join('edge-agent', 'src', 'main.ts')),
    ]);
    expect(hubVersion).toBe(VERSION);
    expect(agentVersion).toBe(VERSION);
  }, 60_000);

  it("is GET /api/v1/app's version and the OpenAPI document's info.version", async () => {
    const app = (await (await fetch(`${hub.url}/api/v1/app`)).json()) as { name: string; version: string };
    expect(app).toMatchObject({ name: 'dockwatch', version: VERSION });
    const openapi = (await (await fetch(`${hub.url}/api/v1/openapi.json`)).json()) as { info: { version: string } };
    expect(openapi.info.version).toBe(VERSION);
  });

  it("is the Dockerfile's default image version label and has a changelog section", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^ARG VERSION=(.*)$/m)?.[1]).toBe(VERSION);
    expect(dockerfile).toMatch(/org\.opencontainers\.image\.version="\$\{VERSION\}"/);
    expect(changelogSection(readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8'), VERSION)).not.toBe('');
  });
});
