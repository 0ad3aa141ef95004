import { type Benchmark, formatBytes, formatCount, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { perMinute, runSoak, type SoakResult } from './support/soak-run';

/**
 * The soak with faults (issue 18): 30 minutes by default (`BENCH_SOAK_MINUTES`), 1,000 simulated
 * agents (`BENCH_SOAK_AGENTS`), 2 real agents on real dockerds (`BENCH_SOAK_REAL_AGENTS`) whose
 * containers are updated against the faults and every 2 minutes. The run and its checks are
 * bench/support/soak-run.ts (the updates bench/support/soak-updates.ts), which the 2-minute test shares.
 */
export const soak: Benchmark = {
  name: 'soak',
  async run(ctx) {
    const minutes = positiveIntegerEnv('BENCH_SOAK_MINUTES', 30);
    const result = await runSoak({
      durationMs: minutes * 60_000,
      agents: positiveIntegerEnv('BENCH_SOAK_AGENTS', 1000),
      containersPerAgent: 20,
      realAgents: positiveIntegerEnv('BENCH_SOAK_REAL_AGENTS', 2),
      diskMiB: 512,
      settleTimeoutMs: 180_000,
      updateEveryMs: 120_000,
      log: ctx.log,
    });
    for (const check of result.checks) ctx.log(`${check.result}: ${check.name}: ${check.reason}`);
    return { title: 'Soak with faults', markdown: report(minutes, result) };
  },
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

function report(minutes: number, result: SoakResult): string {
  const { options, figures } = result;
  const failed = result.checks.filter((check) => check.result === 'fail').length;
  return [
    `${minutes} minutes (\`BENCH_SOAK_MINUTES\`; 30 by default) against one hub process (test/support/stepped-clock-hub-entry.ts: the hub as \`npm start\` runs it, with its injected clock steppable), fs store on a ${options.diskMiB} MiB tmpfs of its own. ${formatCount(options.agents)} simulated agents × ${options.containersPerAgent} containers in a load-generator process (bench/support/soak-agents.ts; \`BENCH_SOAK_AGENTS\`): 10 % of them close and reconnect every minute, every tenth reports timestamps 7 minutes off (ahead or behind), all redial whenever their session ends. ${options.realAgents} real edge agent(s) (\`npm run agent\`) each on its own real dockerd (\`BENCH_SOAK_REAL_AGENTS\`), each with two containers: one whose image is in a real registry behind a fault proxy (test/support/fault-proxy.ts) that cycles through 5xx storms, hangs, slow bodies and 429 with \`Retry-After\`, which the hub checks and the agent pulls through (\`POST /api/v1/containers/watch\` every 10 s), and one straight from the registry whose image has a 4 s health probe. Container updates (bench/support/soak-updates.ts; Docker action trigger \`DD_ACTION_DOCKER_SOAK_*\`, both containers \`dd.action.auto=false\` so the hub never starts one by itself): a newer tag pushed, the container watched until the hub lists it, then \`POST /api/v1/containers/{id}/update\` timed so that the direct container's update is in its health gate when each hub SIGKILL, the dockerd restart and the full disk come, and the proxied one's meets the first 5xx storm and then the proxy's cycle every ${options.updateEveryMs === undefined ? '–' : seconds(options.updateEveryMs)}; every acknowledged (202) operation id is kept and looked up at the end, with every other operation of those containers. Notifications (an HTTP trigger run every 2 s) go to a receiver that answers 500 to every third delivery; the outbox retries 3 times, 1 s apart and more. Continuous writes: settings PATCHes (each read back), API keys created.`,
    '',
    `Faults, in order (s from the start): ${result.faults.map((fault) => `${seconds(fault.t)} ${fault.what}`).join('; ')}. The clock step is of the hub's injected clock (\`deps.now\`: scheduler, outbox, sessions, keys, audit), not the host's, which is not touched; Node's own timers are not stepped.`,
    '',
    markdownTable(
      ['invariant', 'result', 'what was seen'],
      result.checks.map((check) => [check.name, check.result === 'fail' ? '**fail**' : check.result, check.reason]),
    ),
    '',
    markdownTable(
      ['figure', 'value'],
      [
        ['wall time (setup, run, settling, checks)', seconds(result.wallMs)],
        ['settling after the run (fleet resynced, outbox drained)', seconds(Number(figures.settleMs))],
        ['API answers recorded', formatCount(Number(figures.answers))],
        ['writes acknowledged', formatCount(Number(figures.writesAcknowledged))],
        [
          'notification runs acknowledged / receiver requests',
          `${figures.notifications} / ${figures.receiverRequests}`,
        ],
        [
          'agent sessions welcomed / ended',
          `${formatCount(Number(figures.agentWelcomes))} / ${formatCount(Number(figures.agentCloses))}`,
        ],
        ['hub peak RSS (all incarnations)', formatBytes(Number(figures.peakRssBytes))],
        ['hub RSS and fds at the end', `${formatBytes(Number(figures.lastRssBytes))}, ${figures.lastFds}`],
        ['records on disk at the end', formatCount(Number(figures.recordsOnDisk))],
        [
          'container updates acknowledged / operations at the end, by status',
          `${figures.updatesAcknowledged} / ${figures.updateOperations}`,
        ],
        ['registry requests through the proxy, by mode', String(figures.proxyRequests)],
      ],
      ['left', 'right'],
    ),
    '',
    `Hub RSS / fds per minute (pid changes at each SIGKILL): ${perMinute(result.samples)
      .map((sample) => `${formatBytes(sample.rssBytes)} / ${sample.fds}`)
      .join(', ')}.`,
    '',
    failed === 0 ? '- Every invariant held.' : `- **${failed} invariant(s) failed**: see the table.`,
  ].join('\n');
}
