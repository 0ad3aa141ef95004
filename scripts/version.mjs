// npm's `version` lifecycle script (package.json "scripts.version"). `npm version <patch|minor|major|x.y.z>`
// writes the new version into package.json and package-lock.json, runs this, then commits and tags
// `v<version>`; what this changes and stages goes into that same commit:
//
// - Dockerfile: `ARG VERSION=` (the images' org.opencontainers.image.version label, docs/deploy.md);
// - CHANGELOG.md: the Unreleased section becomes `## [<version>] - <today>` (scripts/changelog.mjs);
// - deploy/*/compose.yaml and docs/deploy.md: the `dockwatch/hub:<version>` and `dockwatch/agent:<version>` tags.
//
// Everything else reads package.json at build or run time: the OpenAPI document's info.version,
// `--version` of the hub and the agent, GET /api/v1/app (test/release/version-agreement.test.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { releaseChangelog } from './changelog.mjs';

const IMAGE_TAG = /\b(dockwatch\/(?:hub|agent)):\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?\b/g;

/** Each file (relative to the root) and how its text names the version. */
function versionedFiles(root) {
  const composeFiles = existsSync(join(root, 'deploy'))
    ? readdirSync(join(root, 'deploy'), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(root, 'deploy', entry.name, 'compose.yaml')))
        .map((entry) => `deploy/${entry.name}/compose.yaml`)
        .sort()
    : [];
  return [
    {
      path: 'Dockerfile',
      update(text, version) {
        const lines = text.match(/^ARG VERSION=.*$/gm) ?? [];
        if (lines.length !== 1) throw new Error(`Dockerfile: expected one "ARG VERSION=" line, found ${lines.length}`);
        return text.replace(/^ARG VERSION=.*$/m, `ARG VERSION=${version}`);
      },
    },
    { path: 'CHANGELOG.md', update: (text, version, date) => releaseChangelog(text, version, date) },
    ...[...composeFiles, 'docs/deploy.md'].map((path) => ({
      path,
      update: (text, version) => text.replace(IMAGE_TAG, `$1:${version}`),
    })),
  ];
}

/** Writes the version into every file that names it; returns the files it changed. */
export function applyVersion(root, version, date = new Date().toISOString().slice(0, 10)) {
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version))
    throw new Error(`version: ${version} is not a semantic version`);
  const changed = [];
  // Every update is computed before anything is written: a refusal (an empty changelog) changes nothing.
  const updates = versionedFiles(root).map(({ path, update }) => {
    const before = readFileSync(join(root, path), 'utf8');
    return { path, before, after: update(before, version, date) };
  });
  for (const { path, before, after } of updates) {
    if (after === before) continue;
    writeFileSync(join(root, path), after);
    changed.push(path);
  }
  return changed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // npm runs lifecycle scripts in the package's root.
  const root = process.cwd();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  try {
    const changed = applyVersion(root, version);
    const inGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8' });
    if (inGit.status === 0 && changed.length > 0) {
      const added = spawnSync('git', ['add', '--', ...changed], { cwd: root, stdio: 'inherit' });
      if (added.status !== 0) throw new Error(`version: git add ${changed.join(' ')} failed`);
    }
    console.log(`version ${version}: ${changed.join(', ') || 'nothing else names it'}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
