/**
 * The load generator of the edge benchmark, run as its own process (`node --import tsx
 * bench/support/edge-load-generator.ts PLAN.json`): it plays every agent of the plan over a real
 * WebSocket, speaking edge/1.0 as edge-agent/ does: sign in with shared/edge/sign-in.ts, send the
 * watcher's full snapshot, ping every heartbeat, answer the hub's pings. It has no Docker and no
 * reconnect: a session that ends before the generator is told to stop is reported.
 *
 * Reports on stdout, one JSON line per event (`t` is Date.now(), the same clock as the runner's):
 * `started`, `welcomed` (every 100th and the last), `all-welcomed`, `all-sent`, `closed`
 * (unexpected), `stopped`. SIGTERM closes every session with 1000 and exits.
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
import { FLEET_WATCHER, type FleetAgent, type FleetPlan, fleetHello, fleetInventory } from './edge-fleet';

const plan = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as FleetPlan;
const url = `${plan.hubUrl.replace(/^http/, 'ws')}/api/v1/edge/ws`;
const sockets = new Set<WebSocket>();
let welcomed = 0;
let sent = 0;
let stopping = false;

const report = (event: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, t: Date.now(), ...fields })}\n`);

/** One agent's session, from upgrade to welcome; resolves once welcomed (or failed), the socket then lives on. */
function runAgent(agent: FleetAgent, index: number): Promise<void> {
  return new Promise((resolve) => {
    // Named as the real agent names itself, so a hub on Workers shards it to its gateway.
    const ws = new WebSocket(url, [edgeSubprotocol(EDGE_PROTOCOL)], {
      perMessageDeflate: false,
      headers: { [EDGE_AGENT_NAME_HEADER]: agent.name },
    });
    sockets.add(ws);
    let beat: ReturnType<typeof setInterval> | undefined;
    let settled = false;
    const settle = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as HubFrame;
      switch (frame.type) {
        case 'challenge':
          void fleetHello(agent, frame.challenge, 'bench-host').then((hello) => ws.send(hello));
          return;
        case 'welcome': {
          welcomed += 1;
          if (welcomed % 100 === 0 || welcomed === plan.agents.length) report('welcomed', { count: welcomed });
          if (welcomed === plan.agents.length) report('all-welcomed');
          settle();
          const { containers, images } = fleetInventory(index, plan.containersPerAgent);
          ws.send(
            JSON.stringify({
              type: 'snapshot',
              watcher: FLEET_WATCHER.name,
              syncId: `sync-${index}`,
              part: 0,
              last: true,
              containers,
              images,
            }),
            () => {
              sent += 1;
              if (sent === plan.agents.length) report('all-sent');
            },
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
    ws.on('close', (code, reason) => {
      clearInterval(beat);
      sockets.delete(ws);
      if (!stopping) report('closed', { agent: agent.name, code, reason: String(reason) });
      settle();
    });
    ws.on('unexpected-response', (_request, response) => {
      report('closed', { agent: agent.name, code: 0, reason: `upgrade answered ${response.statusCode}` });
      settle();
    });
    ws.on('error', () => undefined);
  });
}

function unsupported(id: string, request: EdgeRequest) {
  return {
    type: 'reply',
    id,
    ok: false,
    error: { code: 'unsupported', message: `the load generator has no ${request.method}` },
  };
}

async function main(): Promise<void> {
  report('started', { agents: plan.agents.length });
  let next = 0;
  // At most connectConcurrency handshakes in flight: a fleet coming back after a hub restart, not a SYN flood.
  await Promise.all(
    Array.from({ length: Math.min(plan.connectConcurrency, plan.agents.length) }, async () => {
      while (next < plan.agents.length) {
        const index = next++;
        await runAgent(plan.agents[index] as FleetAgent, index);
      }
    }),
  );
}

process.on('SIGTERM', () => {
  stopping = true;
  for (const ws of sockets) ws.close(1000, 'agent shutdown');
  const done = setInterval(() => {
    if (sockets.size > 0) return;
    clearInterval(done);
    report('stopped');
    process.exit(0);
  }, 20);
  setTimeout(() => process.exit(0), 5_000).unref();
});

void main();
