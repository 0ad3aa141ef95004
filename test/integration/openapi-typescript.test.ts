/**
 * openapi-typescript on the document a real hub serves (issue 17 item 6): the generated types
 * type-check, under the project's own tsc and its strict options, with a usage file that also
 * expects a wrong settings value to be refused. It is openapi-typescript 6, a dev dependency:
 * version 7 declares typescript 5 as a peer and calls the compiler API that typescript 7 no longer
 * ships, so it cannot sit beside the project's typescript (docs/openapi.md).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerHub, type HubClient } from '../support/hub-harness';

const OPENAPI_TYPESCRIPT = fileURLToPath(new URL('../../node_modules/openapi-typescript/bin/cli.js', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const run = promisify(execFile);

const USAGE = `import type { components, paths } from './api';

type ErrorBody = components['schemas']['ErrorBody'];
export const failure: ErrorBody = { error: 'Not Found', details: { id: 'c1' } };

type SettingsPatch = NonNullable<paths['/api/v1/settings']['patch']['requestBody']>['content']['application/json'];
export const patch: SettingsPatch = { updateMode: 'auto' };
// @ts-expect-error not one of the update modes
export const wrong: SettingsPatch = { updateMode: 'sometimes' };

type AuditQuery = NonNullable<paths['/api/v1/audit']['get']['parameters']['query']>;
export const page: AuditQuery = { limit: 50, offset: 0 };

type Gone = paths['/api/v1/containers/stats']['get']['responses'][410]['content']['application/json'];
export const gone: Gone = { error: 'Gone' };
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'es2022',
    module: 'esnext',
    moduleResolution: 'bundler',
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    types: [],
  },
  files: ['usage.ts', 'api.d.ts'],
};

describe('openapi-typescript on the served document', () => {
  let hub: HubClient;
  let directory: string;

  beforeAll(async () => {
    hub = await createServerHub();
    directory = await mkdtemp(join(tmpdir(), 'dockwatch-openapi-ts-'));
    const response = await fetch(`${hub.url}/api/v1/openapi.json`);
    await writeFile(join(directory, 'openapi.json'), await response.text());
  }, 60_000);
  afterAll(async () => {
    await hub?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('generates types that type-check with the project’s tsc', async () => {
    await run(process.execPath, [OPENAPI_TYPESCRIPT, 'openapi.json', '-o', 'api.d.ts'], {
      cwd: directory,
      env: { ...process.env, NO_COLOR: '1' },
    });
    await writeFile(join(directory, 'usage.ts'), USAGE);
    await writeFile(join(directory, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const checked = await run(process.execPath, [TSC, '-p', join(directory, 'tsconfig.json')], { cwd: directory }).then(
      () => 'no errors',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(checked).toBe('no errors');
  }, 60_000);
});
