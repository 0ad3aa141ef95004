/**
 * The OpenAPI document as the tools people point at it see it (issue 17 item 6): the document a
 * real listening hub serves is linted by the real `@redocly/cli` under the repository's
 * redocly.yaml (recommended rules) and .redocly.lint-ignore.yaml, and validated by
 * `@apidevtools/swagger-parser`. Regression: the document had 15 lint errors (public and webhook
 * routes without `security`, the webhook token not declared as a scheme) and documented the 410
 * stats alias as 200. The openapi-typescript check is test/integration/openapi-typescript.test.ts.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createServerHub, type HubClient } from '../../support/hub-harness';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REDOCLY_CLI = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const LINT_FILES = ['redocly.yaml', '.redocly.lint-ignore.yaml'];

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** The value a JSON pointer names in the document, or undefined. */
function resolvePointer(document: unknown, pointer: string): unknown {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
}

describe('the served OpenAPI document under the real tools', () => {
  let hub: HubClient;
  let directory: string;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    hub = await createServerHub();
    const response = await fetch(`${hub.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Record<string, unknown>;
    // The configuration's keys are relative to it: the document sits next to copies of both files.
    directory = await mkdtemp(join(tmpdir(), 'dockwatch-openapi-'));
    await writeFile(join(directory, 'openapi.json'), JSON.stringify(document, null, 2));
    for (const file of LINT_FILES) await copyFile(join(ROOT, file), join(directory, file));
  }, 60_000);
  afterAll(async () => {
    await hub?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('is lint-clean under redocly lint (recommended), every exception justified in the repository', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [REDOCLY_CLI, 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format=json'],
      {
        cwd: directory,
        // No telemetry or update check: the test talks to nothing but the files.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; message: string }) => {
      // A failed lint exits 1 with its report on stdout: read it like a passing one.
      if (error.stdout) return { stdout: error.stdout };
      throw error;
    });
    const report = JSON.parse(stdout) as LintReport;
    const problems = report.problems.map(
      (problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('keeps no stale exception: every ignored pointer still names a part of the document', async () => {
    const ignore = parse(await readFile(join(ROOT, '.redocly.lint-ignore.yaml'), 'utf8')) as Record<
      string,
      Record<string, string[]>
    >;
    const pointers = Object.values(ignore['openapi.json'] ?? {}).flat();
    expect(pointers.length).toBeGreaterThan(0);
    for (const pointer of pointers) expect(resolvePointer(document, pointer), pointer).toBeDefined();
  });

  it('is valid OpenAPI 3.1 for swagger-parser', async () => {
    const validated = (await SwaggerParser.validate(structuredClone(document) as never)) as { openapi?: string };
    expect(validated.openapi).toBe('3.1.0');
  });

  it('declares who may call each route, the routes with credentials of their own included', () => {
    const paths = document.paths as Record<string, Record<string, { security?: unknown; responses: object }>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.security, `${method} ${path}`).toBeInstanceOf(Array);
      }
    }
    expect(paths['/health']?.get?.security).toEqual([]);
    expect(paths['/api/v1/webhook/watch']?.post?.security).toEqual([{ webhookToken: [] }]);
    expect(paths['/api/v1/webhooks/registry']?.post?.security).toEqual([{ registrySignature: [] }]);
    expect(paths['/metrics']?.get?.security).toEqual([{ metricsToken: [] }, { session: [] }, { apiKey: ['read'] }]);
    expect(paths['/api/v1/settings']?.patch?.security).toEqual([{ session: [] }, { apiKey: ['settings:write'] }]);
    const schemes = (document.components as { securitySchemes: Record<string, unknown> }).securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual([
      'apiKey',
      'metricsToken',
      'registrySignature',
      'session',
      'webhookToken',
    ]);
    // Regression: the removed aggregate stats path was documented as answering 200.
    expect(Object.keys(paths['/api/v1/containers/stats']?.get?.responses ?? {})).not.toContain('200');
    expect(Object.keys(paths['/api/v1/containers/stats']?.get?.responses ?? {})).toContain('410');
  });
});
