import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Benchmark, formatCount, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { createContainers, removeContainers } from './support/docker-fleet';
import { publishRepositories, REGISTRY_LATENCY_MS, startLatencyBed } from './support/latency-bed';
import { machineBusyShare, sampleMachineCpu, sampleProcess, waitForQuietMachine } from './support/proc-stats';
import { registryFloor } from './support/registry-floor';

const LATENCY_MS = REGISTRY_LATENCY_MS;
const FLOOR_IN_FLIGHT = 16;
const PARALLELISM = 8;
/** 50 repositories, each as `:1.0.0` (its tag list) and `:latest` (a HEAD): 100 references, one request each. */
const REPOSITORIES = 50;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const range = (values: readonly number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} ms`;

interface CliRun {
  /** From spawn() to the last byte of stdout. */
  wallMs: number;
  /** From spawn() to the exit event. */
  exitMs: number;
  code: number | null;
  /** The process's user + system CPU time, from /proc, sampled every 10 ms until it exits (a lower bound). */
  cpuMs: number;
  /** Share of all the machine's cores busy from spawn to exit (the command, the Engine, the registry, the rest). */
  machineBusy: number;
  lines: number;
  stderr: string;
}

/** `node dist/cli.mjs <args>` as a user runs it, timed from spawn to its last line of output. */
async function runCli(root: string, args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const machineBefore = sampleMachineCpu();
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.mjs'), ...args], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let lastOutput = started;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    lastOutput = performance.now();
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let cpuMs = 0;
  const sampler = setInterval(() => {
    try {
      const sample = sampleProcess(child.pid as number);
      cpuMs = sample.cpuUserMs + sample.cpuSystemMs;
    } catch {
      // It has just exited.
    }
  }, 10);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  }).finally(() => clearInterval(sampler));
  return {
    wallMs: lastOutput - started,
    exitMs: performance.now() - started,
    code,
    cpuMs,
    machineBusy: machineBusyShare(machineBefore, sampleMachineCpu()),
    lines: stdout.split('\n').filter((line) => line.length > 0).length,
    stderr,
  };
}

interface Measured {
  floorMs: number;
  run: CliRun;
  requests: Map<string, number>;
}

/**
 * Issue 29, performance: `dockwatch check --docker` as a user runs it from the build, over a real
 * dockerd's containers on references in a real registry behind 20 ms of added latency, against the
 * registry floor measured in the same run and the command's own start-up.
 */
export const cli: Benchmark = {
  name: 'cli',
  async run(ctx) {
    const target = positiveIntegerEnv('BENCH_CLI_CONTAINERS', 1000);
    const repeats = positiveIntegerEnv('BENCH_CLI_REPEATS', 3);
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ctx.root, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`cli: the build failed: ${built.stderr}`);
    if (!existsSync(join(ctx.root, 'dist', 'cli.mjs'))) throw new Error('cli: the build made no dist/cli.mjs');
    const cleanups: (() => Promise<unknown>)[] = [];
    try {
      const scratch = await mkdtemp(join(tmpdir(), 'dockwatch-bench-cli-'));
      cleanups.push(() => rm(scratch, { recursive: true, force: true }));
      const emptyList = join(scratch, 'images.yaml');
      await writeFile(emptyList, 'images: []\n');
      const bed = await startLatencyBed(cleanups);
      const { dockerd, proxy } = bed;
      ctx.log(`pushing ${REPOSITORIES} repositories through the ${LATENCY_MS} ms proxy`);
      const references = await publishRepositories(bed, REPOSITORIES, 'bench/cli');
      ctx.log(`creating ${target} containers over ${references.length} references`);
      const fleet = await createContainers(dockerd, references, target, {
        prefix: 'bench-cli-',
        parallelism: PARALLELISM,
        onProgress: (done) => ctx.log(`${done} containers running`),
      });
      cleanups.unshift(() => removeContainers(dockerd, fleet.ids, PARALLELISM));
      if (fleet.error) ctx.log(`creation stopped at ${fleet.ids.length}: ${fleet.error.message}`);

      const env = { DOCKER_HOST: `unix://${dockerd.socketPath}` };
      // Starting a thousand containers keeps the Engine and containerd busy for a while after the last.
      const quiet = await waitForQuietMachine();
      ctx.log(
        `machine ${(quiet.busyShare * 100).toFixed(0)} % busy after waiting ${(quiet.waitedMs / 1000).toFixed(0)} s`,
      );
      const loadBefore = loadavg()[0] ?? 0;
      const help: CliRun[] = [];
      const empty: CliRun[] = [];
      for (let n = 0; n < repeats; n++) {
        help.push(await runCli(ctx.root, ['check', '--help'], env));
        empty.push(await runCli(ctx.root, ['check', '--file', emptyList], env));
      }
      const bad = empty.find((run) => run.code !== 0);
      if (bad) throw new Error(`cli: the empty list answered ${bad.code}: ${bad.stderr}`);
      ctx.log(
        `start-up: --help ${median(help.map((r) => r.wallMs)).toFixed(0)} ms, empty list ${median(empty.map((r) => r.wallMs)).toFixed(0)} ms`,
      );

      // One round unmeasured: the floor's own connections are opened in it, as the check's are in each run.
      await registryFloor(references, FLOOR_IN_FLIGHT);
      const measured: Measured[] = [];
      for (let n = 0; n < repeats; n++) {
        const floorMs = await registryFloor(references, FLOOR_IN_FLIGHT);
        proxy.reset();
        const run = await runCli(ctx.root, ['check', '--docker'], env);
        // The table: a header and one row per container; exit 0 (nothing newer) or 1 (updates).
        if (run.code !== 0 && run.code !== 1) throw new Error(`cli: check answered ${run.code}: ${run.stderr}`);
        if (run.lines !== fleet.ids.length + 1)
          throw new Error(`cli: check printed ${run.lines - 1} rows for ${fleet.ids.length} containers`);
        measured.push({ floorMs, run, requests: new Map(proxy.counts) });
        ctx.log(
          `floor ${floorMs.toFixed(0)} ms, check ${run.wallMs.toFixed(0)} ms to its last line, ${proxy.total()} registry requests`,
        );
      }
      const load = [loadBefore, loadavg()[0] ?? 0] as const;
      return report(fleet.ids.length, references.length, help, empty, measured, load, quiet);
    } finally {
      for (const cleanup of cleanups) await cleanup().catch((error) => ctx.log(`cleanup: ${String(error)}`));
    }
  },
};

function report(
  containers: number,
  references: number,
  help: readonly CliRun[],
  empty: readonly CliRun[],
  measured: readonly Measured[],
  load: readonly [number, number],
  quiet: { busyShare: number; waitedMs: number },
) {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const startHelp = median(help.map((run) => run.wallMs));
  const startEmpty = median(empty.map((run) => run.wallMs));
  const kinds = [...new Set(measured.flatMap((m) => [...m.requests.keys()]))].sort();
  const rows = measured.map((m, index) => {
    const total = [...m.requests.values()].reduce((sum, n) => sum + n, 0);
    const budget = 1.5 * m.floorMs + startEmpty;
    return [
      String(index + 1),
      ms(m.floorMs),
      ms(m.run.wallMs),
      ms(m.run.exitMs),
      ms(m.run.cpuMs),
      `${(m.run.machineBusy * 100).toFixed(0)} %`,
      ...kinds.map((kind) => formatCount(m.requests.get(kind) ?? 0)),
      formatCount(total),
      (total / references).toFixed(2),
      `${ms(budget)}: ${m.run.wallMs <= budget ? '**met**' : '**missed**'} (${(m.run.wallMs / budget).toFixed(2)}×)`,
    ];
  });
  const table = markdownTable(
    [
      'run',
      'registry floor',
      'check: start to last line',
      'check: start to exit',
      'check: CPU (user + sys)',
      'machine busy (all cores)',
      ...kinds.map((kind) => `registry: ${kind}`),
      'registry total',
      'per reference',
      '1.5 × floor + start-up',
    ],
    rows,
    ['left', ...Array.from({ length: 8 + kinds.length }, () => 'right' as const)],
  );
  const wall = median(measured.map((m) => m.run.wallMs));
  const floor = median(measured.map((m) => m.floorMs));
  return {
    title: '`dockwatch check` over a real Docker Engine (one command, no server)',
    markdown: [
      `\`node dist/cli.mjs check --docker\` (the production build, \`node scripts/build.mjs --if-stale\` first; spawned as a user runs it, \`DOCKER_HOST\` naming the daemon) over ${formatCount(containers)} containers on a real dockerd (test/support/docker), running ${references} image references (\`:1.0.0\` and \`:latest\` of ${REPOSITORIES} repositories, nothing newer) pushed with the docker CLI to a real registry behind a proxy that adds ${LATENCY_MS} ms to every request. The proxy counts the command's requests. Each run is timed from \`spawn()\` to the last byte of the table on stdout (a header and one row per container, checked), right after a round of the registry floor (one manifest HEAD per reference, ${FLOOR_IN_FLIGHT} in flight, through the same proxy, from this process). Start-up is the same program doing next to nothing, median of ${help.length}: \`check --help\` **${ms(startHelp)}** (${range(help.map((r) => r.wallMs))}), \`check --file\` on an empty image list (configuration, registries and the one-shot cycle loaded, nothing to check) **${ms(startEmpty)}** (${range(empty.map((r) => r.wallMs))}); the target uses the latter. \`BENCH_CLI_CONTAINERS\` (default 1,000) and \`BENCH_CLI_REPEATS\` (default 3) set the size and the runs.`,
      '',
      table,
      '',
      `- Median: the check took **${ms(wall)}** from start to its last line, against a floor of ${ms(floor)} and a start-up of ${ms(startEmpty)}: target \`wall ≤ 1.5 × floor + start-up\` = ${ms(1.5 * floor + startEmpty)}, **${wall <= 1.5 * floor + startEmpty ? 'met' : 'missed'}**. Without the start-up, the check's own work took ${ms(wall - startEmpty)}, ${((wall - startEmpty) / floor).toFixed(2)}× the floor.`,
      `- The machine: the runs began once it was quiet after the containers were started (${(quiet.busyShare * 100).toFixed(0)} % of its cores busy over a second, after ${(quiet.waitedMs / 1000).toFixed(0)} s; the Engine and containerd settle for a while after starting a thousand containers); load average (1 min, which lags: it still counts the start) ${load[0].toFixed(1)} then and ${load[1].toFixed(1)} after the last check, on ${availableParallelism()} cores. "Machine busy" is the share of all cores busy during a run, the command's own CPU included. Each run's budget uses its own floor round, measured right before it.`,
      `- CPU time of the check process (median): **${ms(median(measured.map((m) => m.run.cpuMs)))}**, of which start-up (the empty list) ${ms(median(empty.map((r) => r.cpuMs)))}. The check waits on the registry for a floor's worth at most; the rest of its wall time is its own CPU (and, on a shared machine, waiting for a core): for ${formatCount(containers)} containers, one listing of the Engine (asked for by the entry before the command's modules load, so that the daemon lists while they do), the registry requests started from the listing as it arrives (one per distinct image and \`dd.*\` labels; before, they waited 55 to 65 ms for the images' inspects and the records), one inspect per distinct image, the records built from the listing (the table shows nothing that only a container's inspect gives; \`--json\` still inspects each container, for its environment and health) and checked in slices of 8 ms so that registry answers are read as they come, the ${references} registry requests over node:http, and the table.`,
      "- Where that CPU goes, profiled by hand on this bed (`node --cpu-prof dist/cli.mjs check --docker`, 1,000 containers, six runs at load 4, 2026-12-07): of about 520 ms sampled busy, the registry requests 35 % (7 % in their socket writes: loopback TCP is processed in the sender's system call), building and checking the records and the table 19 %, loading the modules 13 %, garbage collection 12 %, Docker 3 %. Before issue 29's changes (2026-12-06, about 1.35 s busy under load): docker-modem 16 % for a thousand container inspects (its `buildRequest` alone 12 %: it formats every request's options with `util.inspect` for a debug line that is off), their socket writes 8 %, garbage collection 14 to 21 %, Node's `fetch` 11 %, the records about 15 %; the records were also kept in a storage and its list indexes that the command never reads, and built in one run of 100 to 150 ms that held the first registry answers.",
      "- Measured apart on the same daemon (2026-12-07, load 4): listing 1,000 containers 70 to 170 ms; inspecting them 8 at a time 350 to 390 ms and about 275 ms of the client's CPU through dockerode, 160 to 340 ms and 185 to 200 ms through a plain node:http keep-alive GET (2026-12-06: a keep-alive agent given to dockerode made it 20 times slower). A fresh process's 100 registry requests, 16 in flight: 185 to 205 ms of CPU through Node's `fetch`, 75 to 90 ms through node:http.",
      "- Issue 29's target: one registry request per reference (a tag list for each `:1.0.0`, a manifest HEAD for each `:latest`), and the wall time above. What's Up Docker is not available here (it ships as a Docker image; it is not installed and not among the packages this machine can install), so its one cycle on the same bed is not measured.",
    ].join('\n'),
  };
}
