// Which test files `npm run test:fast` runs (vitest.fast.config.ts): the unit and in-memory HTTP
// suites, found from what each file reaches rather than from a list kept by hand. A file is left to
// the full run (`npm test`) when its imports, followed through the test code (test/, bench/,
// scripts/; the product's own modules are never test beds), reach one of the TEST_BEDS: a child
// process (dockerd, registries, Redis, hub and agent processes, CLIs), a browser, workerd or a
// bundler run. A suite that opts the hub harness into workerd (`modes: [..., 'workerd']`, whose
// Miniflare import is lazy) runs its other modes only (DOCKWATCH_TEST_FAST, test/support/hub-harness.ts);
// one that starts the workerd hub itself is left out by name.
//
//   node scripts/test-selection.mjs [--slow]   # lists the fast (or the other) files
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The test roots of vitest.config.ts. */
export const TEST_ROOTS = ['hub', 'shared', 'edge-agent', 'test'];
/** Modules whose import means a process, a daemon, a browser, workerd or a bundle is started. */
export const TEST_BEDS = ['node:child_process', 'child_process', 'playwright-core', 'miniflare', 'wrangler', 'esbuild'];
/** Where imports are followed: the test code, not the product (whose Node adapter spawns hooks). */
const FOLLOWED = /^(?:test|bench|scripts)\//;
const WORKERD_HUB = /\bcreateWorkerdHub\(/;
const IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

function testFiles(root, dir) {
  const found = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(root, path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/** A relative specifier as a file of the repository (TypeScript's extensionless and .js forms included). */
function resolveRelative(root, from, specifier) {
  const base = resolve(root, dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')];
  for (const candidate of candidates) {
    try {
      readFileSync(candidate);
      return relative(root, candidate);
    } catch {}
  }
  return undefined;
}

/** Returns (file) => the test bed it reaches, or undefined; memoised over the whole selection. */
export function createBedFinder(root = ROOT) {
  const memo = new Map();
  const bedOf = (file) => {
    if (memo.has(file)) return memo.get(file);
    memo.set(file, undefined); // an import cycle reaches nothing new
    let source = '';
    try {
      source = readFileSync(join(root, file), 'utf8');
    } catch {}
    let found;
    for (const [, specifier] of source.matchAll(IMPORT)) {
      if (TEST_BEDS.includes(specifier) || TEST_BEDS.some((bed) => specifier.startsWith(`${bed}/`))) found = specifier;
      else if (specifier.startsWith('.')) {
        const target = resolveRelative(root, file, specifier);
        const reached = target && FOLLOWED.test(target) ? bedOf(target) : undefined;
        if (reached) found = `${target} → ${reached}`;
      }
      if (found) break;
    }
    memo.set(file, found);
    return found;
  };
  return (file) => {
    const reached = bedOf(file);
    if (reached) return reached;
    return WORKERD_HUB.test(readFileSync(join(root, file), 'utf8')) ? 'the harness in workerd' : undefined;
  };
}

/** Every test file, split: `fast` needs no test bed; `slow` maps each other file to the bed it reaches. */
export function selectTests(root = ROOT) {
  const bedOf = createBedFinder(root);
  const fast = [];
  const slow = new Map();
  for (const file of TEST_ROOTS.flatMap((dir) => testFiles(root, dir)).sort()) {
    const bed = bedOf(file);
    if (bed) slow.set(file, bed);
    else fast.push(file);
  }
  return { fast, slow };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { fast, slow } = selectTests();
  if (process.argv.includes('--slow')) for (const [file, bed] of slow) console.log(`${file}\t${bed}`);
  else for (const file of fast) console.log(file);
  console.error(`${fast.length} fast files, ${slow.size} left to the full run`);
}
