import { Agent, fetch as undiciFetch } from 'undici';
import { type NodeHub, startNodeHub } from '../hub/src/adapter/node/start-node-hub';
import { UI_STREAM_DEFAULTS } from '../hub/src/events/sse-route';
import { silentSink } from '../shared/logging/logger';
import { readSse, type SseStream } from '../test/support/sse-client';
import { type Benchmark, markdownTable, positiveIntegerEnv } from './support/benchmark';

const CLIENTS = 100;
const PER_ADDRESS = UI_STREAM_DEFAULTS.maxPerIp;
const WARMUP_ROUNDS = 3;

interface Round {
  publishMs: number;
  firstMs: number;
  medianMs: number;
  lastMs: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

/**
 * The clients connect from 127.0.0.2, .3, ... (every 127/8 address is this machine on Linux), ten
 * per address: the hub's per-address cap stays in force, as it would for 100 real browsers.
 */
async function connectClients(hub: NodeHub, agents: Agent[]): Promise<SseStream[]> {
  const streams: SseStream[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const agent = agents[Math.floor(i / PER_ADDRESS)] as Agent;
    const response = (await undiciFetch(`${hub.url}/api/v1/events/ui`, { dispatcher: agent })) as unknown as Response;
    if (response.status !== 200)
      throw new Error(`sse-fanout: client ${i} got ${response.status}: ${await response.text()}`);
    const stream = readSse(response);
    await stream.nextOfType('dd:connected');
    streams.push(stream);
  }
  return streams;
}

async function runRound(hub: NodeHub, streams: readonly SseStream[], round: number): Promise<Round> {
  const started = performance.now();
  const event = hub.hub.parts.events.publish('dd:scan-started', { containerId: `bench-${round}` });
  const publishMs = performance.now() - started;
  const frames = await Promise.all(streams.map((stream) => stream.nextOfType('dd:scan-started')));
  if (frames.some((frame) => frame.id !== event.id))
    throw new Error(`sse-fanout: round ${round} delivered another event`);
  const arrivals = frames.map((frame) => frame.receivedAt - started).sort((a, b) => a - b);
  return { publishMs, firstMs: arrivals[0] ?? 0, medianMs: percentile(arrivals, 0.5), lastMs: arrivals.at(-1) ?? 0 };
}

export const sseFanout: Benchmark = {
  name: 'sse-fanout',
  async run(ctx) {
    const rounds = positiveIntegerEnv('BENCH_SSE_ROUNDS', 20);
    // In-process: publishing needs the hub's bus, which has (rightly) no public route. The hub still
    // listens on a real socket and every client is a real HTTP connection; see the notes below.
    const hub = await startNodeHub({
      env: { DD_STORE_DRIVER: 'memory', DD_SERVER_PORT: '0', DD_SERVER_HOST: '127.0.0.1' },
      sink: silentSink,
    });
    const agents = Array.from(
      { length: CLIENTS / PER_ADDRESS },
      (_, i) => new Agent({ localAddress: `127.0.0.${i + 2}` }),
    );
    let streams: SseStream[] = [];
    try {
      streams = await connectClients(hub, agents);
      ctx.log(`${streams.length} clients connected`);
      for (let round = 0; round < WARMUP_ROUNDS; round++) await runRound(hub, streams, -1 - round);
      const measured: Round[] = [];
      for (let round = 0; round < rounds; round++) measured.push(await runRound(hub, streams, round));
      const last = measured.map((r) => r.lastMs).sort((a, b) => a - b);
      ctx.log(
        `time to the last of ${CLIENTS} clients: p50 ${percentile(last, 0.5).toFixed(2)} ms, max ${(last.at(-1) ?? 0).toFixed(2)} ms`,
      );
      return { title: 'UI event stream fan-out', markdown: report(measured) };
    } finally {
      await Promise.all(streams.map((stream) => stream.close()));
      await hub.close();
      await Promise.all(agents.map((agent) => agent.close()));
    }
  },
};

function report(measured: readonly Round[]): string {
  const column = (pick: (round: Round) => number) => measured.map(pick).sort((a, b) => a - b);
  const rows = (
    [
      ['publish() call (encode once, enqueue to every stream)', column((r) => r.publishMs)],
      ['first client has the event', column((r) => r.firstMs)],
      ['median client has it', column((r) => r.medianMs)],
      ['**last client has it**', column((r) => r.lastMs)],
    ] as const
  ).map(([label, sorted]) => [
    label,
    `${percentile(sorted, 0.5).toFixed(2)} ms`,
    `${(sorted.at(-1) ?? 0).toFixed(2)} ms`,
  ]);
  return [
    `${CLIENTS} clients hold \`GET /api/v1/events/ui\` open over real HTTP/1.1 connections to the hub on 127.0.0.1 (${PER_ADDRESS} per source address, the per-address cap). One event is published and the time until each client has parsed it is taken; ${measured.length} rounds after ${WARMUP_ROUNDS} warm-up rounds. \`BENCH_SSE_ROUNDS\` sets the number of rounds.`,
    '',
    markdownTable(['measure', 'p50', 'max'], rows, ['left', 'right', 'right']),
    '',
    '- The hub runs in the benchmark process (`startNodeHub`, the same function `npm start` calls), because publishing needs its event bus and no public route publishes. It listens on a real socket and every client is a separate undici connection, so the figure covers framing, the socket writes, the loopback network and SSE parsing.',
    '- Hub and clients share one thread: the hub writes all the frames before any client runs, and the clients then parse one after another. The time to the last client is therefore an upper bound for a hub serving clients on other machines.',
  ].join('\n');
}
