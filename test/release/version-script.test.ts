/**
 * `npm version` with scripts/version.mjs as its `version` lifecycle script, run for real on a
 * temporary copy of the files it touches in a fresh git repository (never on this one): one commit
 * and one tag carry package.json, the lock, the Dockerfile's version label, the changelog's new
 * heading and the compose examples' tags; an empty Unreleased section stops it before the commit.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changelogSection } from '../../scripts/changelog.mjs';
import { applyVersion } from '../../scripts/version.mjs';
import { REPO_ROOT } from '../support/hub-process';
import { runCommand } from '../support/run-command';

const FILES = [
  'package.json',
  'package-lock.json',
  'Dockerfile',
  'CHANGELOG.md',
  'docs/deploy.md',
  'deploy/hub/compose.yaml',
  'deploy/agent/compose.yaml',
  'deploy/reverse-proxy/compose.yaml',
  'deploy/socket-proxy/compose.yaml',
  'scripts/version.mjs',
  'scripts/changelog.mjs',
];
const CURRENT = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const [MAJOR, MINOR] = CURRENT.split('.').map(Number) as [number, number];
const NEXT = `${MAJOR}.${MINOR + 1}.0`;
const today = () => new Date().toISOString().slice(0, 10);

describe('npm version with scripts/version.mjs', () => {
  let repo: string;
  const file = (path: string) => readFileSync(join(repo, path), 'utf8');
  const git = async (...args: string[]) => {
    const result = await runCommand('git', args, { cwd: repo, env: gitEnv() });
    if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const gitEnv = () => ({
    ...process.env,
    GIT_AUTHOR_NAME: 'Release Test',
    GIT_AUTHOR_EMAIL: 'release@example.test',
    GIT_COMMITTER_NAME: 'Release Test',
    GIT_COMMITTER_EMAIL: 'release@example.test',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  });
  const npmVersion = (...args: string[]) =>
    runCommand('npm', ['version', ...args], { cwd: repo, env: { ...gitEnv(), npm_config_loglevel: 'error' } });

  /** The Unreleased section of the copy, with an entry of the test's own (the real one may be empty). */
  const withUnreleasedEntry = (entry: string | undefined) => {
    const text = file('CHANGELOG.md');
    const start = text.indexOf('## [Unreleased]');
    const end = text.indexOf('\n## [', start + 1);
    const body = entry === undefined ? '' : `### Fixed\n\n- ${entry}\n\n`;
    writeFileSync(
      join(repo, 'CHANGELOG.md'),
      `${text.slice(0, start)}## [Unreleased]\n\n${body}${text.slice(end + 1)}`,
    );
  };

  beforeEach(async () => {
    repo = mkdtempSync(join(tmpdir(), 'dockwatch-npm-version-'));
    for (const path of FILES) cpSync(join(REPO_ROOT, path), join(repo, path), { recursive: true });
    await git('init', '--quiet', '--initial-branch=main');
  });

  afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
  });

  it('moves the version into every file that names it, in the commit and tag npm makes', async () => {
    withUnreleasedEntry('A fix made for this test.');
    await git('add', '--all');
    await git('commit', '--quiet', '-m', 'before');

    const result = await npmVersion('minor');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe(`v${NEXT}`);

    expect(JSON.parse(file('package.json'))).toMatchObject({ version: NEXT });
    expect(JSON.parse(file('package-lock.json'))).toMatchObject({ version: NEXT, packages: { '': { version: NEXT } } });
    expect(file('Dockerfile')).toMatch(new RegExp(`^ARG VERSION=${NEXT.replaceAll('.', '\\.')}$`, 'm'));
    const changelog = file('CHANGELOG.md');
    expect(changelog).toContain(
      `## [Unreleased]\n\n## [${NEXT}] - ${today()}\n\n### Fixed\n\n- A fix made for this test.`,
    );
    expect(changelogSection(changelog, CURRENT)).toBe(
      changelogSection(readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8'), CURRENT),
    );
    for (const path of ['deploy/hub/compose.yaml', 'deploy/reverse-proxy/compose.yaml', 'docs/deploy.md']) {
      expect(file(path)).toContain(`dockwatch/hub:${NEXT}`);
      expect(file(path)).not.toContain(`dockwatch/hub:${CURRENT}`);
    }
    expect(file('deploy/agent/compose.yaml')).toContain(`dockwatch/agent:${NEXT}`);

    // One commit and its tag hold all of it; nothing is left unstaged.
    expect(await git('tag', '--list')).toBe(`v${NEXT}`);
    expect(await git('log', '-1', '--format=%s')).toBe(NEXT);
    expect((await git('show', '--name-only', '--format=', 'HEAD')).split('\n').sort()).toEqual(
      [
        'CHANGELOG.md',
        'Dockerfile',
        'deploy/agent/compose.yaml',
        'deploy/hub/compose.yaml',
        'deploy/reverse-proxy/compose.yaml',
        'deploy/socket-proxy/compose.yaml',
        'docs/deploy.md',
        'package-lock.json',
        'package.json',
      ].sort(),
    );
    expect(await git('status', '--porcelain')).toBe('');
  }, 60_000);

  it('stops before the commit and the tag when the Unreleased section is empty', async () => {
    withUnreleasedEntry(undefined);
    await git('add', '--all');
    await git('commit', '--quiet', '-m', 'before');

    const result = await npmVersion('patch');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'the "## [Unreleased]" section is empty: describe the release before versioning it',
    );
    expect(await git('tag', '--list')).toBe('');
    expect(await git('log', '-1', '--format=%s')).toBe('before');
    // applyVersion computes every change before writing one: only npm's own package.json edits remain.
    expect(file('Dockerfile')).toBe(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  }, 60_000);

  it('refuses a version that is not semantic, naming it', () => {
    expect(() => applyVersion(repo, 'one.two')).toThrow('version: one.two is not a semantic version');
  });
});
