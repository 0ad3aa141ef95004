// The slowest test files of a vitest JSON report (`vitest run --reporter=json --outputFile.json=FILE`),
// as a Markdown table: CI keeps it with the test report and shows it in the run's summary. The same
// table ends every local run of more than 20 files (`npm test`, `npm run test:fast`): vitest.config.ts
// adds slowestFilesReporter() to vitest's default reporter.
//
//   node scripts/slowest-tests.mjs reports/vitest.json [--count 20]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The `count` files that took longest, slowest first: path relative to the repository, seconds, tests, status. */
export function slowestFiles(report, count = 20, root = ROOT) {
  const files = Array.isArray(report?.testResults) ? report.testResults : [];
  const rows = files
    .filter((file) => typeof file.startTime === 'number' && typeof file.endTime === 'number')
    .map((file) => ({
      file: relative(root, file.name),
      seconds: (file.endTime - file.startTime) / 1000,
      tests: Array.isArray(file.assertionResults) ? file.assertionResults.length : 0,
      status: file.status,
    }));
  return rankSlowest(rows, count);
}

function rankSlowest(rows, count) {
  return [...rows].sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file)).slice(0, count);
}

/** The rows of vitest's own test modules (its reporter API), as slowestFiles makes them from the JSON report. */
export function slowestModules(testModules, count = 20, root = ROOT) {
  const rows = testModules.map((module) => ({
    file: relative(root, module.moduleId),
    seconds: module.diagnostic().duration / 1000,
    tests: [...module.children.allTests()].length,
    status: module.state(),
  }));
  return rankSlowest(rows, count);
}

/**
 * A vitest reporter that prints the table after a run of more than `count` files (a run of a few
 * files shows their times already). On the command line `--reporter` replaces it, as CI does.
 */
export function slowestFilesReporter({ count = 20, write = (text) => process.stdout.write(text) } = {}) {
  return {
    onTestRunEnd(testModules) {
      if (testModules.length <= count) return;
      write(`\n${renderSlowest(slowestModules(testModules, count))}\n`);
    },
  };
}

export function renderSlowest(rows) {
  const lines = [
    `## The ${rows.length} slowest test files`,
    '',
    '| # | file | seconds | tests | status |',
    '|---:|---|---:|---:|---|',
    ...rows.map(
      (row, index) => `| ${index + 1} | \`${row.file}\` | ${row.seconds.toFixed(1)} | ${row.tests} | ${row.status} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { count: { type: 'string', default: '20' } },
  });
  const [file] = positionals;
  const count = Number(values.count);
  if (!file || !Number.isInteger(count) || count < 1) {
    console.error('usage: node scripts/slowest-tests.mjs <vitest json report> [--count N]');
    process.exit(2);
  }
  process.stdout.write(renderSlowest(slowestFiles(JSON.parse(readFileSync(file, 'utf8')), count)));
}
