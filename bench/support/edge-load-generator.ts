/**
 * The load generator of the edge benchmark, run as its own process (`node --import tsx
 * bench/support/edge-load-generator.ts PLAN.json`): it plays every agent of the plan over a real
 * WebSocket, speaking edge/1.0 as edge-agent/ does: sign in with shared/edge/sign-in.ts, send the
 * watcher's full snapshot, ping every heartbeat, answer the hub's pings, give up a session not
 * welcomed within the agent's sign-in timeout (15 s from the dial, 4005), and dial again after a
 * session ends with the real agent's backoff (1 s doubling to 60 s, jittered). It has no Docker.
 *
 * Reports on stdout, one JSON line per event (`t` is Date.now(), the same clock as the runner's):
 * `started`, `welcomed` (every 100th agent and the last), `all-welcomed`, `all-sent` (every agent
 * welcomed, every agent's snapshot sent, at least once), `closed` (a session ended before the stop;
 * the agent dials again), `stopped`. SIGTERM closes every session with 1000 and exits.
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { createBackoff, DEFAULT_BACKOFF } from '../../edge-agent/src/link/backoff';
import { DEFAULT_SESSION_TUNING } from '../../edge-agent/src/link/session-options';
import {
  EDGE_AGENT_NAME_HEADER,
  EDGE_CLOSE,
  EDGE_PROTOCOL,
  type EdgeRequest,
  edgeSubprotocol,
  type HubFrame,
} from '../../shared/edge/protocol';
import { FLEET_WATCHER, type FleetAgent, type FleetPlan, fleetHello, fleetInventory } from './edge-fleet';

const plan = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as FleetPlan;
const url = `${plan.hubUrl.replace(/^http/, 'ws')}/api/v1/edge/ws`;
const sockets = new Set<WebSocket>();
const welcomedAgents = new Set<number>();
const sentAgents = new Set<number>();
let stopping = false;

const report = (event: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, t: Date.now(), ...fields })}\n`);

/** An agent: its first session, then a new one after each end, as edge-agent's link dials again. */
function runAgent(agent: FleetAgent, index: number): Promise<void> {
  const backoff = createBackoff(DEFAULT_BACKOFF);
  const redial = (sessionMs: number) => {
    if (stopping) return;
    backoff.sessionEnded(sessionMs);
    setTimeout(() => void dial(agent, index, redial), backoff.next());
  };
  return dial(agent, index, redial);
}

/** One session, from upgrade to close; resolves once welcomed (or ended), the socket then lives on. */
function dial(agent: FleetAgent, index: number, ended: (sessionMs: number) => void): Promise<void> {
  const openedAt = Date.now();
  return new Promise((resolve) => {
    // Named as the real agent names itself, so a hub on Workers shards it to its gateway.
    const { signInTimeoutMs } = DEFAULT_SESSION_TUNING;
    const ws = new WebSocket(url, [edgeSubprotocol(EDGE_PROTOCOL)], {
      perMessageDeflate: false,
      headers: { [EDGE_AGENT_NAME_HEADER]: agent.name },
      handshakeTimeout: signInTimeoutMs,
    });
    sockets.add(ws);
    let beat: ReturnType<typeof setInterval> | undefined;
    let settled = false;
    let settledByWelcome = false;
    // As the agent does: no welcome this long after the dial, the session is given up (and dialled again).
    const signInTimer = setTimeout(() => {
      if (!settledByWelcome) ws.close(EDGE_CLOSE.signInTimeout, 'no welcome from the hub in time');
    }, signInTimeoutMs);
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
          const first = !welcomedAgents.has(index);
          welcomedAgents.add(index);
          const count = welcomedAgents.size;
          if (first && (count % 100 === 0 || count === plan.agents.length)) report('welcomed', { count });
          if (first && count === plan.agents.length) report('all-welcomed');
          settledByWelcome = true;
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
              const first = !sentAgents.has(index);
              sentAgents.add(index);
              if (first && sentAgents.size === plan.agents.length) report('all-sent');
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
    let over = false;
    const end = () => {
      clearInterval(beat);
      clearTimeout(signInTimer);
      sockets.delete(ws);
      settle();
      if (!over) {
        over = true;
        ended(Date.now() - openedAt);
      }
    };
    // A session cut without a close frame (1006) says why only in the error before it.
    let failure = '';
    ws.on('close', (code, reason) => {
      if (!stopping && !over)
        report('closed', { agent: agent.name, code, reason: String(reason) || failure, welcomed: settledByWelcome });
      end();
    });
    ws.on('unexpected-response', (request, response) => {
      report('closed', { agent: agent.name, code: 0, reason: `upgrade answered ${response.statusCode}` });
      request.destroy();
      end();
    });
    ws.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
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
