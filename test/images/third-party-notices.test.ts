/**
 * The licence policy (docs/deploy.md "Licences"; scripts/third-party-notices.mjs) on the real
 * dependency tree and on a real production build: every runtime dependency declares a permissive
 * licence, and dist/THIRD-PARTY-NOTICES.md names every package inside the bundles with its licence
 * and the licence text it ships.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAll } from '../../scripts/build.mjs';
import type { BundledPackage } from '../../scripts/third-party-notices.mjs';
import { declaredLicence, licenceProblem } from '../../scripts/third-party-notices.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('licence policy', () => {
  it.each([
    'MIT',
    'Apache-2.0',
    'BSD-3-Clause',
    'ISC',
    'BlueOak-1.0.0',
    '0BSD',
    'Unlicense',
    '(MIT OR GPL-3.0-or-later)',
    '(MIT AND Zlib) OR Apache-2.0',
    'MIT AND ISC',
  ])('lets %s ship', (expression) => {
    expect(licenceProblem(expression)).toBeUndefined();
  });

  it.each([
    'GPL-3.0-only',
    'GPL-2.0',
    'AGPL-3.0-or-later',
    'LGPL-2.1-or-later',
    'MPL-2.0',
    'SSPL-1.0',
    'EUPL-1.2',
    'MIT AND GPL-2.0',
    'UNLICENSED',
    'SEE LICENSE IN LICENSE.txt',
    '',
    undefined,
  ])('refuses %s', (expression) => {
    expect(licenceProblem(expression)).toMatch(/licen/);
  });

  it('reads old-style licence lists as alternatives', () => {
    expect(declaredLicence({ license: [{ type: 'MIT', url: 'x' }] })).toBe('MIT');
    expect(declaredLicence({ licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] })).toBe('(MIT OR Apache-2.0)');
    expect(declaredLicence({ license: { type: 'BSD-2-Clause' } })).toBe('BSD-2-Clause');
    expect(declaredLicence({})).toBeUndefined();
  });

  it('holds for every runtime dependency (npm ls --omit=dev --all)', () => {
    const dirs = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((dir) => dir !== '' && dir !== ROOT && dir !== ROOT.replace(/\/$/, ''));
    expect(dirs.length).toBeGreaterThan(50);
    const refused = dirs.flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      const problem = licenceProblem(declaredLicence(manifest));
      return problem ? [`${String(manifest.name)}@${String(manifest.version)}: ${problem}`] : [];
    });
    expect(refused).toEqual([]);
  }, 60_000);
});

describe('dist/THIRD-PARTY-NOTICES.md of a production build', () => {
  let outdir: string;
  let packages: BundledPackage[];
  let notices: string;

  beforeAll(async () => {
    outdir = mkdtempSync(join(tmpdir(), 'dockwatch-dist-'));
    ({ packages } = await buildAll({ outdir }));
    notices = readFileSync(join(outdir, 'THIRD-PARTY-NOTICES.md'), 'utf8');
  }, 120_000);

  afterAll(() => {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
  });

  it('lists the packages inside the bundles, the UI’s included, each with its licence and text', () => {
    const names = packages.map((p) => p.name);
    for (const shipped of ['hono', 'dockerode', 'pino', 'ws', 'valibot', 'preact']) expect(names).toContain(shipped);
    // Development tools and the transpiler are not in dist/.
    for (const tool of ['tsx', 'vitest', 'esbuild', 'typescript']) expect(names).not.toContain(tool);
    for (const p of packages) {
      expect(notices).toContain(`| ${p.name} | ${p.version} | ${p.licence} |`);
      expect(licenceProblem(p.licence)).toBeUndefined();
    }
    const hono = packages.find((p) => p.name === 'hono');
    expect(hono?.licenceTexts[0]?.text).toMatch(/Permission is hereby granted/);
    expect(notices).toContain(hono?.licenceTexts[0]?.text.trim().split('\n')[0]);
  });

  it('leaves a bundle that runs without node_modules: --version from a copy outside the repository', () => {
    expect(existsSync(join(outdir, 'node_modules'))).toBe(false);
    const version = execFileSync(process.execPath, [join(outdir, 'hub.mjs'), '--version'], {
      cwd: outdir,
      encoding: 'utf8',
    });
    expect(version.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });
});
