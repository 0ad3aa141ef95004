/**
 * package-lock.json stays as npm 11 writes it, so the first `npm start` on a fresh clone (which
 * runs `npm install` through scripts/ensure-deps.mjs) leaves `git status` clean. Regression: the
 * lock once lacked other platforms' optional packages (esbuild's, Biome's, ...), and that first
 * install added 134 lines to it; a root entry out of step with package.json (its `license`) did
 * the same on a smaller scale.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  name?: string;
  version?: string;
  license?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const lock = read('package-lock.json') as { lockfileVersion: number; packages: Record<string, LockEntry> };
const manifest = read('package.json') as LockEntry;

/** Where Node would find `name` from the package at `path`: its own node_modules, then each parent's. */
function resolves(path: string, name: string): boolean {
  let base = path;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (base === '') return false;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent < 0 ? '' : base.slice(0, parent);
  }
}

describe('package-lock.json', () => {
  it('has a root entry in step with package.json', () => {
    const root = lock.packages[''];
    expect(lock.lockfileVersion).toBe(3);
    expect(root).toMatchObject({ name: manifest.name, version: manifest.version, license: manifest.license });
    expect(root?.dependencies).toEqual(manifest.dependencies);
    expect(root?.devDependencies).toEqual(manifest.devDependencies);
  });

  it('lists every optional dependency of every locked package, other platforms’ included', () => {
    const missing = Object.entries(lock.packages).flatMap(([path, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !resolves(path, name))
        .map((name) => `${path || '(root)'} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
