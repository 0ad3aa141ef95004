/**
 * CHANGELOG.md keeps the Keep a Changelog shape the release depends on (its section for a version is
 * the release's notes), and scripts/changelog.mjs reads and releases sections the way the release
 * workflow and `npm version` use them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changelogSection, releaseChangelog } from '../../scripts/changelog.mjs';
import { REPO_ROOT } from '../support/hub-process';
import { runCommand } from '../support/run-command';

const CHANGELOG = readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8');
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const semverParts = (version: string) => version.split(/[-+]/)[0]?.split('.').map(Number) ?? [];
const compareVersions = (a: string, b: string) => {
  const [x, y] = [semverParts(a), semverParts(b)];
  for (let index = 0; index < 3; index++) if (x[index] !== y[index]) return (x[index] ?? 0) - (y[index] ?? 0);
  return 0;
};

describe('CHANGELOG.md', () => {
  const headings = [...CHANGELOG.matchAll(/^## (.*)$/gm)].map((match) => match[1] ?? '');

  it('says it follows Keep a Changelog and Semantic Versioning', () => {
    expect(CHANGELOG.split('\n')[0]).toBe('# Changelog');
    expect(CHANGELOG).toContain('https://keepachangelog.com/en/1.1.0/');
    expect(CHANGELOG).toContain('https://semver.org/spec/v2.0.0.html');
  });

  it('opens with Unreleased, then released versions newest first, each with its date', () => {
    expect(headings[0]).toBe('[Unreleased]');
    const released = headings.slice(1).map((heading) => {
      const match = /^\[(\d+\.\d+\.\d+(?:-[\w.-]+)?)\] - (\d{4}-\d{2}-\d{2})$/.exec(heading);
      expect(match, heading).not.toBeNull();
      return { version: match?.[1] ?? '', date: match?.[2] ?? '' };
    });
    expect(released.length).toBeGreaterThan(0);
    for (const [index, entry] of released.slice(1).entries()) {
      const newer = released[index] as { version: string; date: string };
      expect(compareVersions(newer.version, entry.version)).toBeGreaterThan(0);
      expect(newer.date >= entry.date).toBe(true);
    }
  });

  it("has notes for package.json's version (the release workflow publishes them)", () => {
    const notes = changelogSection(CHANGELOG, VERSION);
    expect(notes).toMatch(/^### (Added|Changed|Deprecated|Removed|Fixed|Security)$/m);
    for (const heading of notes.matchAll(/^### (.*)$/gm))
      expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(heading[1]);
  });
});

describe('scripts/changelog.mjs', () => {
  const sample = [
    '# Changelog',
    '',
    '## [Unreleased]',
    '',
    '### Fixed',
    '',
    '- A thing.',
    '',
    '## [0.2.0] - 2026-12-01 [YANKED]',
    '',
    '### Added',
    '',
    '- Two things.',
    '',
    '## [0.1.0] - 2026-11-01',
    '',
    '- One thing.',
    '',
    '[0.2.0]: https://example.test/compare/v0.1.0...v0.2.0',
    '',
  ].join('\n');

  it("reads a version's section up to the next heading or the link references", () => {
    expect(changelogSection(sample, '0.2.0')).toBe('### Added\n\n- Two things.');
    expect(changelogSection(sample, '0.1.0')).toBe('- One thing.');
    expect(changelogSection(sample, 'Unreleased')).toBe('### Fixed\n\n- A thing.');
  });

  it('refuses a version it has no notes for, and a heading it cannot read', () => {
    expect(() => changelogSection(sample, '0.3.0')).toThrow('no "## [0.3.0]" section');
    expect(() => changelogSection('## [1.0.0] - 2026-01-01\n\n## [0.9.0] - 2025-01-01\n- x\n', '1.0.0')).toThrow(
      'section is empty',
    );
    expect(() => changelogSection('## 1.0.0\n- x\n', '1.0.0')).toThrow('line 1 is not a "## [version] - date" heading');
  });

  it('releases the Unreleased entries under the version and opens an empty Unreleased', () => {
    const released = releaseChangelog(sample, '0.3.0', '2026-12-24');
    expect(released).toContain('## [Unreleased]\n\n## [0.3.0] - 2026-12-24\n\n### Fixed\n\n- A thing.\n\n## [0.2.0]');
    expect(changelogSection(released, '0.3.0')).toBe('### Fixed\n\n- A thing.');
    expect(() => changelogSection(released, 'Unreleased')).toThrow('section is empty');
    expect(changelogSection(released, '0.1.0')).toBe('- One thing.');
  });

  it('refuses to release nothing, a version twice, or a malformed date', () => {
    const empty = releaseChangelog(sample, '0.3.0', '2026-12-24');
    expect(() => releaseChangelog(empty, '0.3.1', '2026-12-25')).toThrow('describe the release before versioning it');
    expect(() => releaseChangelog(sample, '0.2.0', '2026-12-24')).toThrow('already a "## [0.2.0]" section');
    expect(() => releaseChangelog(sample, '0.3.0', '24.12.2026')).toThrow('not a YYYY-MM-DD date');
    expect(() => releaseChangelog('# Changelog\n', '0.3.0', '2026-12-24')).toThrow('no "## [Unreleased]" section');
  });

  it('prints a section from the command line, and exits 1 naming what is missing', async () => {
    const script = join(REPO_ROOT, 'scripts', 'changelog.mjs');
    const found = await runCommand(process.execPath, [script, 'section', VERSION]);
    expect(found.code).toBe(0);
    expect(found.stdout).toBe(`${changelogSection(CHANGELOG, VERSION)}\n`);
    const missing = await runCommand(process.execPath, [script, 'section', '99.0.0']);
    expect(missing).toMatchObject({ code: 1, stdout: '', stderr: 'changelog: no "## [99.0.0]" section\n' });
  });
});
