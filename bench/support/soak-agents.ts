/**
 * The simulated fleet of the soak (bench/soak.ts, test/integration/soak-faults.test.ts), run as its
 * own process (`node --import tsx bench/support/soak-agents.ts PLAN.json`). Each agent speaks
 * edge/1.0 as the edge benchmark's load generator does (edge-load-generator.ts: sign in, one full
 * snapshot of fleetInventory, a ping every heartbeat, a pong to each of the hub's), and unlike it
 * lives through faults: a session that ends for any reason (the hub SIGKILLed, a refused upgrade)
 * dials again after a short random wait, as edge-agent/ does. Every `churnEveryMs` a `churnShare`
 * of the agents, picked at random, close with 1000 and come back. Agents whose index is a multiple
 * of `skewEvery` run a clock `skewMs` off: every timestamp they report (containers' creation and
 * start) is shifted by it, alternately ahead and behind.
 *
 * Stdout, one JSON line each (`t` is Date.now()): `status` every `statusEveryMs` (agents connected
 * now, welcomes, closes and failed dials so far), `churn` (how many were cycled), `stopped`.
 * SIGTERM closes every session with 1000 and exits.
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import {
  EDGE_AGENT_NAME_HEADER,
  EDGE_PROTOCOL,
  type EdgeRequest,
  edgeSubprotocol,
  type HubFrame,
} from '../../shared/edge/protocol';
import { FLEET_WATCHER, type FleetAgent, fleetHello, fleetInventory } from './edge-fleet';

export interface SoakFleetPlan {
  hubUrl: string;
  agents: FleetAgent[];
  containersPerAgent: number;
  churnShare: number;
  churnEveryMs: number;
  skewEvery: number;
  skewMs: number;
  statusEveryMs: number;
}

const plan = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as SoakFleetPlan;
const url = `${plan.hubUrl.replace(/^http/, 'ws')}/api/v1/edge/ws`;
const live = new Map<number, WebSocket>();
const tally = { welcomes: 0, closes: 0, failedDials: 0 };
let stopping = false;

const report = (event: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, t: Date.now(), ...fields })}\n`);
/** 0.5–2.5 s: a fleet whose hub came back does not all dial in the same millisecond. */
const redialDelay = () => 500 + Math.random() * 2_000;

/** The agent's clock offset: none for most, ±skewMs for every skewEvery-th. */
const skewOf = (index: number) =>
  plan.skewEvery > 0 && index % plan.skewEvery === 0 ? (index % (2 * plan.skewEvery) === 0 ? 1 : -1) * plan.skewMs : 0;

function inventory(index: number) {
  const { containers, images } = fleetInventory(index, plan.containersPerAgent);
  const skew = skewOf(index);
  if (skew === 0) return { containers, images };
  return {
    images,
    containers: containers.map((container) => ({
      ...container,
      createdAt: container.createdAt + skew,
      startedAt: new Date(Date.parse(container.startedAt ?? '2026-01-01T00:00:00.000Z') + skew).toISOString(),
    })),
  };
}

/** One agent for the whole run: each session, and a new dial whenever one ends. */
function dial(agent: FleetAgent, index: number): void {
  if (stopping) return;
  const ws = new WebSocket(url, [edgeSubprotocol(EDGE_PROTOCOL)], {
    perMessageDeflate: false,
    headers: { [EDGE_AGENT_NAME_HEADER]: agent.name },
    handshakeTimeout: 15_000,
  });
  let beat: ReturnType<typeof setInterval> | undefined;
  let welcomed = false;
  let again = false;
  const redial = () => {
    if (again) return;
    again = true;
    clearInterval(beat);
    if (live.get(index) === ws) live.delete(index);
    if (!stopping) setTimeout(() => dial(agent, index), redialDelay());
  };
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as HubFrame;
    switch (frame.type) {
      case 'challenge':
        void fleetHello(agent, frame.challenge, 'soak-host').then((hello) => ws.send(hello));
        return;
      case 'welcome': {
        welcomed = true;
        tally.welcomes += 1;
        live.set(index, ws);
        const { containers, images } = inventory(index);
        ws.send(
          JSON.stringify({
            type: 'snapshot',
            watcher: FLEET_WATCHER.name,
            syncId: `soak-${index}-${tally.welcomes}`,
            part: 0,
            last: true,
            containers,
            images,
          }),
        );
        beat = setInterval(() => ws.send('{"type":"ping"}'), frame.heartbeatMs);
        return;
      }
      case 'ping':
        ws.send('{"type":"pong"}');
        return;
      case 'request':
        ws.send(JSON.stringify(unsupported(frame.id, frame.request)));
        return;
      default:
    }
  });
  ws.on('close', () => {
    if (welcomed) tally.closes += 1;
    else tally.failedDials += 1;
    redial();
  });
  ws.on('unexpected-response', () => {
    tally.failedDials += 1;
    ws.terminate();
    redial();
  });
  ws.on('error', () => redial());
}

function unsupported(id: string, request: EdgeRequest) {
  return {
    type: 'reply',
    id,
    ok: false,
    error: { code: 'unsupported', message: `the soak fleet has no ${request.method}` },
  };
}

/** A random churnShare of the connected agents close with 1000; each dials again on its own. */
function churn(): void {
  const connected = [...live.entries()];
  const count = Math.round(plan.agents.length * plan.churnShare);
  for (let i = connected.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [connected[i], connected[j]] = [connected[j] as [number, WebSocket], connected[i] as [number, WebSocket]];
  }
  for (const [, ws] of connected.slice(0, count)) ws.close(1000, 'soak churn');
  report('churn', { count: Math.min(count, connected.length) });
}

// Spread over the first 2 s: a fleet starting, not one burst.
for (const [index, agent] of plan.agents.entries()) setTimeout(() => dial(agent, index), (index * 5) % 2_000);
const statusTimer = setInterval(() => report('status', { connected: live.size, ...tally }), plan.statusEveryMs);
const churnTimer = setInterval(churn, plan.churnEveryMs);

process.on('SIGTERM', () => {
  stopping = true;
  clearInterval(statusTimer);
  clearInterval(churnTimer);
  for (const ws of live.values()) ws.close(1000, 'agent shutdown');
  setTimeout(() => {
    report('stopped', { connected: live.size, ...tally });
    process.exit(0);
  }, 500);
});
