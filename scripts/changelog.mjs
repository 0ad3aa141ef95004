// CHANGELOG.md (Keep a Changelog): one version's section, for the release notes, and the release of
// the Unreleased section under a version's heading, for `npm version` (scripts/version.mjs).
//
//   node scripts/changelog.mjs section 0.2.0 [--file CHANGELOG.md]   # prints that version's notes
//
// Plain Node with no dependency: the release workflow runs it before installing anything.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const UNRELEASED = 'Unreleased';

/** `## [0.1.0] - 2026-12-06` (`[YANKED]` may follow) or `## [Unreleased]`; a section runs to the next `## `. */
const HEADING = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2})(?: \[YANKED\])?)?[ \t]*$/;
/** Link reference definitions (`[0.1.0]: https://…`) close the last section. */
const LINK_REFERENCE = /^\[[^\]]+\]: /;

function sections(text) {
  const lines = text.split('\n');
  const found = [];
  for (const [index, line] of lines.entries()) {
    const heading = HEADING.exec(line);
    if (heading) found.push({ name: heading[1], date: heading[2], start: index });
    else if (/^## /.test(line)) throw new Error(`changelog: line ${index + 1} is not a "## [version] - date" heading`);
  }
  return found.map((section, position) => {
    let end = found[position + 1]?.start ?? lines.length;
    for (let index = section.start + 1; index < end; index++)
      if (LINK_REFERENCE.test(lines[index])) {
        end = index;
        break;
      }
    return {
      ...section,
      end,
      body: lines
        .slice(section.start + 1, end)
        .join('\n')
        .trim(),
    };
  });
}

/** The text under `## [version]`, trimmed; fails when there is no such section or it says nothing. */
export function changelogSection(text, version) {
  const section = sections(text).find((candidate) => candidate.name === version);
  if (!section) throw new Error(`changelog: no "## [${version}]" section`);
  if (section.body === '') throw new Error(`changelog: the "## [${version}]" section is empty`);
  return section.body;
}

/**
 * The changelog with the Unreleased section's entries under `## [version] - date` and a fresh, empty
 * Unreleased section above them. Refuses a version that already has a section and an Unreleased
 * section with nothing in it: a release without notes is a mistake, caught before the tag.
 */
export function releaseChangelog(text, version, date) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`changelog: ${date} is not a YYYY-MM-DD date`);
  const all = sections(text);
  if (all.some((section) => section.name === version))
    throw new Error(`changelog: there is already a "## [${version}]" section`);
  const unreleased = all.find((section) => section.name === UNRELEASED);
  if (!unreleased) throw new Error(`changelog: no "## [${UNRELEASED}]" section to release`);
  if (unreleased.body === '')
    throw new Error(`changelog: the "## [${UNRELEASED}]" section is empty: describe the release before versioning it`);
  const lines = text.split('\n');
  const released = [`## [${UNRELEASED}]`, '', `## [${version}] - ${date}`, '', unreleased.body, ''];
  return [...lines.slice(0, unreleased.start), ...released, ...lines.slice(unreleased.end)].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { file: { type: 'string' } } });
  const [command, version] = positionals;
  if (command !== 'section' || !version) {
    console.error('usage: node scripts/changelog.mjs section <version> [--file CHANGELOG.md]');
    process.exit(2);
  }
  const file = values.file ?? join(fileURLToPath(new URL('..', import.meta.url)), 'CHANGELOG.md');
  try {
    process.stdout.write(`${changelogSection(readFileSync(file, 'utf8'), version)}\n`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
