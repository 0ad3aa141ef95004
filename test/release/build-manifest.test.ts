/**
 * scripts/build-manifest.mjs: `npm start` rebuilds dist/ only when a file the last build read is
 * newer than that build (issue 30 item 2).
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildInputs, staleReason, writeBuildManifest } from '../../scripts/build-manifest.mjs';

let root: string;
let outdir: string;
const BUILT_AT = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(ms);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dockwatch-manifest-'));
  outdir = join(root, 'dist');
  mkdirSync(join(outdir, 'ui'), { recursive: true });
  mkdirSync(join(root, 'hub'));
  for (const file of ['hub.mjs', 'agent.mjs', 'ui/ui-bundle.json']) writeFileSync(join(outdir, file), '');
  writeFileSync(join(root, 'hub', 'a.ts'), '');
  utimesSync(join(root, 'hub', 'a.ts'), at(BUILT_AT - 1000), at(BUILT_AT - 1000));
  writeBuildManifest(outdir, { startedAt: BUILT_AT, inputs: ['hub/a.ts'] });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('lists the files of the metafiles, not the stubs, with the build’s own files', () => {
  const inputs = buildInputs([{ inputs: { 'hub/a.ts': {}, 'unused:ssh2': {} } }, { inputs: { 'ui/b.tsx': {} } }], root);
  expect(inputs).toContain('hub/a.ts');
  expect(inputs).toContain('ui/b.tsx');
  expect(inputs).toContain('node_modules/.package-lock.json');
  expect(inputs).not.toContain('unused:ssh2');
});

it('is up to date while nothing it read changed', () => {
  expect(staleReason(outdir, root)).toBeUndefined();
});

it('is stale when an input is newer than the build, gone, or an output is missing', () => {
  utimesSync(join(root, 'hub', 'a.ts'), at(BUILT_AT + 1000), at(BUILT_AT + 1000));
  expect(staleReason(outdir, root)).toBe('hub/a.ts changed');
  unlinkSync(join(root, 'hub', 'a.ts'));
  expect(staleReason(outdir, root)).toBe('hub/a.ts is gone');
  unlinkSync(join(outdir, 'hub.mjs'));
  expect(staleReason(outdir, root)).toBe('no hub.mjs yet');
});

it('is stale without a manifest (a first build, or one cut short)', () => {
  unlinkSync(join(outdir, '.build-inputs.json'));
  expect(staleReason(outdir, root)).toBe('no .build-inputs.json from a previous build');
});
