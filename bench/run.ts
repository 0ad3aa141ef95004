import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEventLatency } from './agent-event-latency';
import { batchNotification } from './batch-notification';
import { cli } from './cli';
import { compression } from './compression';
import { containerList } from './container-list';
import { edgeAgents } from './edge-agents';
import { footprint } from './footprint';
import { httpThroughput } from './http-throughput';
import { pushNotifyLatency } from './push-notify-latency';
import { registryRequests } from './registry-requests';
import { scan } from './scan';
import { soak } from './soak';
import { sources } from './sources';
import { sseFanout } from './sse-fanout';
import { start } from './start';
import type { BenchContext, Benchmark } from './support/benchmark';
import { describeMachine, summarizeMachine } from './support/machine';
import { readSections, renderReport, renderSection } from './support/report';
import { testSuite } from './test-suite';
import { ui } from './ui';
import { updateContainer } from './update-container';
import { watchCycle } from './watch-cycle';
import { watchHttp } from './watch-http';
import { workersGateways, workersHeap } from './workers';

// Static and ordered: the order of the sections in docs/benchmarks.md.
const BENCHMARKS: readonly Benchmark[] = [
  httpThroughput,
  registryRequests,
  sseFanout,
  watchCycle,
  watchHttp,
  containerList,
  compression,
  pushNotifyLatency,
  batchNotification,
  updateContainer,
  edgeAgents,
  agentEventLatency,
  ui,
  footprint,
  start,
  workersHeap,
  workersGateways,
  scan,
  soak,
  cli,
  sources,
  testSuite,
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT_PATH = join(ROOT, 'docs', 'benchmarks.md');

/**
 * `npm run bench -- http registry` runs the benchmarks whose names contain any of the words; a word
 * that is a benchmark's whole name runs that one only (`workers`, not `workers-heap` too).
 */
function selectBenchmarks(filters: readonly string[]): readonly Benchmark[] {
  if (filters.length === 0) return BENCHMARKS;
  const names = new Set(BENCHMARKS.map((benchmark) => benchmark.name));
  const matches = (name: string, filter: string) => (names.has(filter) ? name === filter : name.includes(filter));
  const selected = BENCHMARKS.filter((benchmark) => filters.some((filter) => matches(benchmark.name, filter)));
  if (selected.length === 0) {
    throw new Error(
      `bench: no benchmark matches ${filters.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`,
    );
  }
  return selected;
}

/** Sections in the file that no listed benchmark produces (renamed, or from another branch). */
function orphanSections(previous: ReadonlyMap<string, string>): string[] {
  const known = new Set(BENCHMARKS.map((benchmark) => benchmark.name));
  return [...previous].filter(([name]) => !known.has(name)).map(([, text]) => text);
}

async function main(): Promise<number> {
  const filters = process.argv.slice(2);
  const selected = selectBenchmarks(filters);
  const machine = describeMachine();
  process.stderr.write(`bench: ${summarizeMachine(machine)}\n`);
  const previous = readSections(existsSync(REPORT_PATH) ? readFileSync(REPORT_PATH, 'utf8') : '');
  const fresh = new Map<string, string>();
  let failed = 0;

  for (const benchmark of selected) {
    const ctx: BenchContext = {
      machine,
      root: ROOT,
      log: (message) => process.stderr.write(`bench:${benchmark.name}: ${message}\n`),
    };
    const started = performance.now();
    try {
      const section = await benchmark.run(ctx);
      fresh.set(benchmark.name, renderSection(benchmark.name, section, machine));
      ctx.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      failed += 1;
      ctx.log(`FAILED: ${(error as Error).stack ?? String(error)}`);
    }
  }

  // Nothing new measured: leave the file alone rather than restamp old figures with today's machine.
  if (fresh.size > 0) {
    // A failed or filtered-out benchmark keeps its previous section, in the order of BENCHMARKS.
    const sections = BENCHMARKS.flatMap((benchmark) => fresh.get(benchmark.name) ?? previous.get(benchmark.name) ?? []);
    // A filtered run touches only what it ran; a full run drops sections of benchmarks that no longer exist.
    if (filters.length > 0) sections.push(...orphanSections(previous));
    mkdirSync(dirname(REPORT_PATH), { recursive: true });
    writeFileSync(REPORT_PATH, renderReport(machine, sections));
    process.stderr.write(`bench: wrote ${REPORT_PATH}\n`);
  }
  return failed === 0 ? 0 : 1;
}

// Exits once the report is written rather than when the loop drains: a request to a daemon that
// stopped answering (dockerd 20.10 once hung on force-removals in the watch-cycle teardown) would
// keep the process, and the daemon the test bed's exit hook kills, alive indefinitely.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  },
);
