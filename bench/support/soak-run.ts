import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AppKind } from '../../test/support/docker/update-images';
import { type AgentProcess, agentKeygen, spawnAgent } from '../../test/support/edge-agent-process';
import { type FaultMode, type FaultProxy, startFaultProxy } from '../../test/support/fault-proxy';
import { type HubProcess, REPO_ROOT, startHubProcess } from '../../test/support/hub-process';
import { type NotificationReceiver, startNotificationReceiver } from '../../test/support/notification-receiver';
import { mountSmallDisk, type SmallDisk } from '../../test/support/small-disk';
import { fleetKeys } from '../edge-agents';
import { fleetInventory } from './edge-fleet';
import { sampleProcess } from './proc-stats';
import type { SoakFleetPlan } from './soak-agents';
import {
  allSettled,
  collectOperationStates,
  judgeUpdateOperations,
  type OperationState,
  runUpdateLoop,
  type UpdateLog,
  type UpdateMoment,
  type UpdateTarget,
} from './soak-updates';

/** What a soak runs: bench/soak.ts (30 minutes, 1,000 agents) and the 2-minute test share this. */
export interface SoakOptions {
  durationMs: number;
  agents: number;
  containersPerAgent: number;
  /** Real edge agents, each on its own real dockerd (0 runs none: no dockerd, registry or proxy). */
  realAgents: number;
  /** Size of the tmpfs under the fs store. */
  diskMiB: number;
  /** How long the end waits for the fleet to resync and the outbox to drain. */
  settleTimeoutMs: number;
  /**
   * How much the hub's RSS and fds may grow over the window after warm-up: 10 % (the issue's limit,
   * over the last 20 of 30 minutes) unless a shorter run says otherwise.
   */
  growthLimit?: number;
  /**
   * Besides the updates timed against the hub's SIGKILLs, the dockerd restart and the full disk,
   * one more every this long from the first third to the quiet end (meeting the registry's faults).
   * Absent: those timed against faults only.
   */
  updateEveryMs?: number;
  log(message: string): void;
}

export type CheckResult = 'pass' | 'fail' | 'not run';
export interface Check {
  name: string;
  result: CheckResult;
  reason: string;
}

export interface SoakSample {
  /** ms since the run started. */
  t: number;
  pid: number;
  rssBytes: number;
  fds: number;
}

export interface FaultEvent {
  t: number;
  what: string;
}

export interface SoakResult {
  options: Omit<SoakOptions, 'log'>;
  wallMs: number;
  checks: Check[];
  faults: FaultEvent[];
  samples: SoakSample[];
  figures: Record<string, number | string>;
}

const HUB_ENTRY = join(REPO_ROOT, 'test', 'support', 'stepped-clock-hub-entry.ts');
const SAMPLE_EVERY_MS = 2_000;
const HOUR_MS = 3_600_000;
/** A restarted hub's fleet is back and its heap grown to size this long after it listens. */
const HUB_WARM_UP_MS = 30_000;
const CLOCK_SKEW_MS = 7 * 60_000;
/** A fault explains a 5xx answered while it lasts, and this long after (requests in flight, retries). */
const FAULT_GRACE_MS = 5_000;
/** After a hub restart, how long a real agent may take to sign in again (the fleet redials at the same time). */
const AGENT_BACK_MS = 30_000;
/** The proxy changes mode this many times over the run. */
const PROXY_STEPS = 16;
const PROXY_CYCLE: readonly FaultMode[] = ['pass', 'storm', 'pass', 'timeout', 'pass', 'slow', 'pass', 'throttle'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  t: number;
  route: string;
  status: number;
  /** The 5xx body parsed as a §2.15 error, or why not. */
  jsonError: boolean;
  body: string;
}

/** Everything the run records as it goes; the checks read it at the end. */
class Ledger {
  readonly started = Date.now();
  readonly answers: Answer[] = [];
  readonly faults: FaultEvent[] = [];
  readonly windows: { kind: string; from: number; to: number }[] = [];
  readonly violations = new Map<string, string[]>();
  unreachable = 0;
  now = () => Date.now() - this.started;
  fault(what: string) {
    this.faults.push({ t: this.now(), what });
  }
  violate(check: string, reason: string) {
    const list = this.violations.get(check) ?? [];
    if (list.length < 20) list.push(`${(this.now() / 1000).toFixed(1)} s: ${reason}`);
    this.violations.set(check, list);
  }
  /** A window during which a fault explains failures of the given kind. */
  open(kind: string): () => void {
    const window = { kind, from: this.now(), to: Number.POSITIVE_INFINITY };
    this.windows.push(window);
    return () => {
      window.to = this.now();
    };
  }
  explainedBy(kind: string, t: number, graceMs = FAULT_GRACE_MS) {
    return this.windows.some((w) => w.kind === kind && t >= w.from && t <= w.to + graceMs);
  }
}

/** A hub that is SIGKILLed and started again on the same port and store. */
class HubSlot {
  hub: HubProcess | undefined;
  constructor(
    readonly env: Record<string, string>,
    readonly url: string,
  ) {}
  async start() {
    this.hub = await startHubProcess(this.env, 60_000, HUB_ENTRY);
  }
  get pid() {
    return this.hub?.child.pid;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One HTTP call of the workload; answers undefined when the hub is not there (killed, restarting). */
async function call(
  ledger: Ledger,
  url: string,
  route: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown } | undefined> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  } catch {
    ledger.unreachable += 1;
    return undefined;
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const jsonError =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';
  if (response.status >= 500)
    ledger.answers.push({ t: ledger.now(), route, status: response.status, jsonError, body: text.slice(0, 300) });
  else ledger.answers.push({ t: ledger.now(), route, status: response.status, jsonError: true, body: '' });
  return { status: response.status, body };
}

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

interface Workload {
  /** The last settings value the hub acknowledged (200). */
  lastSettings: string | undefined;
  keys: Set<string>;
  /** Notification runs the hub acknowledged: simulated container id → when. */
  notes: Map<string, number>;
  writes: number;
}

/** Continuous API writes, each read back; they go on through every fault and count what was acknowledged. */
async function runWorkload(ledger: Ledger, hubUrl: string, until: () => boolean, work: Workload): Promise<void> {
  const modes = ['notify', 'manual', 'auto'] as const;
  const settingsLoop = async () => {
    for (let i = 0; !until(); i++) {
      const mode = modes[i % 3] as string;
      const answer = await call(
        ledger,
        `${hubUrl}/api/v1/settings`,
        'PATCH /settings',
        json('PATCH', { updateMode: mode }),
      );
      if (answer?.status === 200) {
        work.lastSettings = mode;
        work.writes += 1;
        const read = await call(ledger, `${hubUrl}/api/v1/settings`, 'GET /settings');
        if (read?.status === 200 && (read.body as { updateMode?: string }).updateMode !== mode)
          ledger.violate(
            'acknowledged writes readable',
            `settings read ${JSON.stringify(read.body)} after ${mode} was acknowledged`,
          );
      }
      await sleep(answer ? 300 : 1_000);
    }
  };
  const keyLoop = async () => {
    for (let i = 0; !until(); i++) {
      const answer = await call(
        ledger,
        `${hubUrl}/api/v1/api-keys`,
        'POST /api-keys',
        json('POST', { name: `soak-${i}`, scopes: ['read'] }),
      );
      if (answer?.status === 201) {
        work.keys.add((answer.body as { keyId: string }).keyId);
        work.writes += 1;
      }
      await sleep(answer ? 1_500 : 1_000);
    }
  };
  const noteLoop = async () => {
    for (let i = 0; !until(); i++) {
      const id = `soak-note-${i}`;
      const answer = await call(
        ledger,
        `${hubUrl}/api/v1/triggers/http/soak`,
        'POST /triggers/http/soak',
        json('POST', { id, name: `soak-${i}` }),
      );
      // 200: delivered at once; 502 with an outbox id: stored, the outbox retries it.
      const outboxId = (answer?.body as { details?: { outboxId?: string } } | undefined)?.details?.outboxId;
      if (answer?.status === 200 || (answer?.status === 502 && outboxId)) work.notes.set(id, ledger.now());
      await sleep(answer ? 2_000 : 1_000);
    }
  };
  const watchLoop = async () => {
    while (!until()) {
      await call(ledger, `${hubUrl}/api/v1/containers/watch`, 'POST /containers/watch', { method: 'POST' });
      await sleep(10_000);
    }
  };
  await Promise.all([settingsLoop(), keyLoop(), noteLoop(), watchLoop()]);
}

interface Generator {
  child: ChildProcess;
  last: Record<string, unknown>;
}

function startSoakAgents(planFile: string): Generator {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'bench', 'support', 'soak-agents.ts'), planFile],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const generator: Generator = { child, last: {} };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const event = JSON.parse(line) as { event: string };
    if (event.event === 'status' || event.event === 'stopped') generator.last = event;
  });
  return generator;
}

const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Pages through GET /api/v1/containers; every id, as often as it is listed. */
async function listAllContainerIds(hubUrl: string): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 200) {
    const response = await fetch(`${hubUrl}/api/v1/containers?limit=200&offset=${offset}`);
    if (!response.ok) throw new Error(`GET /api/v1/containers answered ${response.status}`);
    const page = (await response.json()) as { data: { id: string }[]; hasMore: boolean };
    ids.push(...page.data.map((container) => container.id));
    if (!page.hasMore) return ids;
  }
}

/** The hub's records of these ids (name, status) and each real agent's Engine containers (name, state). */
async function describeRealRecords(
  hubUrl: string,
  ids: readonly string[],
  agents: readonly {
    name: string;
    dockerd: Pick<import('../../test/support/docker/start-dockerd').TestDockerd, 'docker'>;
  }[],
): Promise<string> {
  const records = await Promise.all(
    ids.map(async (id) => {
      const record = (await (await fetch(`${hubUrl}/api/v1/containers/${id}`)).json().catch(() => ({}))) as {
        name?: string;
        status?: string;
      };
      return `${record.name ?? '?'} ${id.slice(0, 12)} (${record.status ?? '?'})`;
    }),
  );
  const engines = await Promise.all(
    agents.map(async (agent) => {
      const listed = await agent.dockerd.docker.listContainers({ all: true }).catch(() => []);
      const names = listed.map((c) => `${c.Names[0]?.slice(1)} ${c.Id.slice(0, 12)} (${c.State})`);
      return `${agent.name}'s Engine: ${names.join(', ') || 'none'}`;
    }),
  );
  return `hub lists ${records.join(', ')}; ${engines.join('; ')}`;
}

async function listAllKeyIds(hubUrl: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const response = await fetch(
      `${hubUrl}/api/v1/api-keys?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    const page = (await response.json()) as { data: { keyId: string }[]; hasMore: boolean; nextCursor?: string };
    for (const key of page.data) ids.add(key.keyId);
    if (!page.hasMore || !page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
}

async function recordFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.rec')).map((e) => join(e.parentPath, e.name));
}

/**
 * Growth of the peak of the second half of the samples over the peak of the first half. Peaks, not
 * means: RSS is a garbage-collection sawtooth, and a leak raises its crests.
 */
function growth(values: number[]): number {
  if (values.length < 6) return Number.NaN;
  const half = Math.floor(values.length / 2);
  return Math.max(...values.slice(half)) / Math.max(...values.slice(0, half)) - 1;
}

/** The fault schedule, as fractions of the run; kills early so the last hub lives the last two thirds. */
const SCHEDULE = {
  firstKill: 0.1,
  secondKill: 0.22,
  warmUpEnds: 1 / 3,
  dockerdRestart: 0.4,
  diskFull: 0.48,
  clockForward: 0.62,
  clockBack: 0.72,
  quiet: 0.85,
} as const;

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { log } = options;
  const ledger = new Ledger();
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-soak-'));
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  let disk: SmallDisk | undefined;
  const checks: Check[] = [];
  const check = (name: string, passed: boolean | undefined, reason: string) =>
    checks.push({ name, result: passed === undefined ? 'not run' : passed ? 'pass' : 'fail', reason });
  try {
    disk = mountSmallDisk(options.diskMiB);
    const storePath = join(disk.path, 'data');
    const receiver: NotificationReceiver = await startNotificationReceiver();
    cleanups.push(() => receiver.close());
    // Every third delivery fails with a 500: the outbox retries it.
    const answered = new Map<number, number>();
    receiver.behave({
      status: (request) => {
        const status = receiver.received.indexOf(request) % 3 === 2 ? 500 : 200;
        answered.set(receiver.received.indexOf(request), status);
        return status;
      },
      body: '{"ok":true}',
    });

    const fleet = await fleetKeys(options.agents);
    const authorizedKeys = join(dir, 'authorized_keys');
    const lines = fleet.map((agent) => `${agent.publicKey} ${agent.name}`);

    // Real agents: each on a real dockerd, one container from the registry behind the fault proxy
    // and one straight from the registry (its updates meet the hub's and dockerd's faults, not the proxy's).
    const real: {
      dockerd: import('../../test/support/docker/start-dockerd').TestDockerd;
      agent?: AgentProcess;
      name: string;
      keyFile: string;
      proxied: UpdateTarget;
      direct: UpdateTarget;
    }[] = [];
    let proxy: FaultProxy | undefined;
    if (options.realAgents > 0) {
      const { startDockerd } = await import('../../test/support/docker/start-dockerd');
      const { startRegistry } = await import('../../test/support/registry/start-registry');
      const { publishApp, pullApp } = await import('../../test/support/docker/update-images');
      const registry = await startRegistry({ variant: 'plain' });
      cleanups.push(() => registry.stop());
      proxy = await startFaultProxy(registry.url);
      cleanups.push(() => proxy?.close());
      for (let i = 0; i < options.realAgents; i++) {
        const dockerd = await startDockerd();
        cleanups.push(() => dockerd.stop());
        const name = `real-${i}`;
        const keyFile = join(dir, `${name}.key`);
        const { publicKey } = await agentKeygen(keyFile, name);
        lines.push(`${publicKey} ${name}`);
        // Pushed to the registry itself, named through the proxy: the hub and agents meet the faults.
        const proxied = { ...registry, host: proxy.host };
        const reference = await publishApp(dockerd, proxied, {
          repository: `soak/app${i}`,
          tag: '1.0.0',
          kind: 'sleep',
        });
        if (i === 0) await publishApp(dockerd, proxied, { repository: 'soak/app0', tag: '1.1.0', kind: 'sleep' });
        // A health probe of 4 s: an update of it is in its health gate that long, when the fault comes.
        const direct = await publishApp(dockerd, registry, {
          repository: `soak/direct${i}`,
          tag: '1.0.0',
          kind: 'slow-healthy',
        });
        for (const [container, image] of [
          [`app-${i}`, reference],
          [`direct-${i}`, direct],
        ] as const) {
          await pullApp(dockerd, image);
          const created = await dockerd.docker.createContainer({
            name: container,
            Image: image,
            // Updated when the soak asks, timed against a fault: never by the hub itself when the
            // workload's settings PATCHes turn updateMode to auto.
            Labels: { 'dd.watch': 'true', 'dd.action.auto': 'false' },
            StopTimeout: 1,
            HostConfig: { Init: true, NetworkMode: 'none', RestartPolicy: { Name: 'always' } },
          });
          await created.start();
        }
        // Newer tags are pushed to the registry's own port: the proxy's faults are for the hub's checks and the agent's pulls.
        const target = (container: string, repository: string, kind: AppKind): UpdateTarget => ({
          agent: name,
          containerName: container,
          publish: async (tag) => {
            await publishApp(dockerd, registry, { repository, tag, kind });
          },
        });
        real.push({
          dockerd,
          name,
          keyFile,
          proxied: target(`app-${i}`, `soak/app${i}`, 'sleep'),
          direct: target(`direct-${i}`, `soak/direct${i}`, 'slow-healthy'),
        });
      }
      log(`${options.realAgents} dockerd(s), registry ${registry.url} behind fault proxy ${proxy.host}`);
    }
    await writeFile(authorizedKeys, lines.join('\n'));

    const clockFile = join(dir, 'clock-offset');
    await writeFile(clockFile, '0');
    const port = await freePort();
    const hubUrl = `http://127.0.0.1:${port}`;
    const slot = new HubSlot(
      {
        DD_STORE_DRIVER: 'fs',
        DD_STORE_PATH: storePath,
        DD_SERVER_PORT: String(port),
        DD_LOG_FORMAT: 'json',
        DD_LOCAL_WATCHER: 'false',
        DD_EDGE_AUTHORIZED_KEYS: authorizedKeys,
        DD_SERVER_RATELIMIT_WEBSOCKET: '1000000',
        DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '1000000',
        DD_EDGE_SIGNIN_MAX: '1000000',
        DD_NOTIFICATION_HTTP_SOAK_URL: receiver.url,
        STEPPED_CLOCK_FILE: clockFile,
        NOTIFY_TEST_ATTEMPTS: '3',
        NOTIFY_TEST_DELAY_MS: '1000',
        // The Docker action trigger the soak's container updates go through.
        DD_ACTION_DOCKER_SOAK_HEALTHTIMEOUT: '10',
      },
      hubUrl,
    );
    await slot.start();
    cleanups.push(() => slot.hub?.kill('SIGTERM'));
    log(`hub ${hubUrl} (pid ${slot.pid}), store on a ${options.diskMiB} MiB tmpfs`);

    for (const agent of real) {
      agent.agent = spawnAgent({
        hubUrl,
        keyFile: agent.keyFile,
        name: agent.name,
        env: {
          DD_WATCHER_LOCAL_SOCKET: agent.dockerd.socketPath,
          DD_EDGE_RECONNECT_MIN_MS: '200',
          DD_EDGE_RECONNECT_MAX_MS: '2000',
        },
      });
      cleanups.push(() => agent.agent?.kill('SIGTERM'));
    }

    const planFile = join(dir, 'fleet.json');
    const plan: SoakFleetPlan = {
      hubUrl,
      agents: fleet.map(({ name, keyId, secretKey }) => ({ name, keyId, secretKey })),
      containersPerAgent: options.containersPerAgent,
      churnShare: 0.1,
      churnEveryMs: 60_000,
      skewEvery: 10,
      skewMs: CLOCK_SKEW_MS,
      statusEveryMs: 2_000,
    };
    await writeFile(planFile, JSON.stringify(plan));
    const generator = startSoakAgents(planFile);
    cleanups.push(async () => {
      if (generator.child.exitCode === null) {
        generator.child.kill('SIGTERM');
        await once(generator.child, 'exit');
      }
    });
    const expectedFleet = new Set<string>();
    for (let i = 0; i < options.agents; i++)
      for (const container of fleetInventory(i, options.containersPerAgent).containers) expectedFleet.add(container.id);

    const runStarted = ledger.now();
    const at = (fraction: number) => runStarted + fraction * options.durationMs;
    // Over once the time is up and every fault has run (on a loaded machine a restart can run late).
    let faultsDone = false;
    const ended = () => ledger.now() >= at(1) && faultsDone;
    const work: Workload = { lastSettings: undefined, keys: new Set(), notes: new Map(), writes: 0 };
    const samples: SoakSample[] = [];

    // Sampling and the continuous container check.
    const sampler = (async () => {
      while (!ended()) {
        const pid = slot.pid;
        if (pid !== undefined && slot.hub?.child.exitCode === null) {
          try {
            samples.push({ t: ledger.now(), pid, rssBytes: sampleProcess(pid).rssBytes, fds: fdCount(pid) });
          } catch {
            // The hub was killed between the check and the read.
          }
        }
        const listed = await call(ledger, `${hubUrl}/api/v1/containers?limit=1`, 'GET /containers');
        const total = (listed?.body as { total?: number } | undefined)?.total;
        if (listed?.status === 200 && total !== undefined && total > expectedFleet.size + 2 * options.realAgents + 5)
          ledger.violate(
            'no container record lost or duplicated',
            `${total} records listed, more than the agents reported`,
          );
        await sleep(SAMPLE_EVERY_MS);
      }
    })();

    // The registry's faults, round and round, until the quiet end.
    const proxyCycle = (async () => {
      if (!proxy) return;
      const step = options.durationMs / PROXY_STEPS;
      for (let i = 0; ledger.now() < at(SCHEDULE.quiet); i++) {
        const mode = PROXY_CYCLE[i % PROXY_CYCLE.length] as FaultMode;
        proxy.setMode(mode);
        const close = mode === 'pass' ? undefined : ledger.open('registry');
        if (mode !== 'pass') ledger.fault(`registry proxy: ${mode}`);
        await sleep(Math.min(step, at(SCHEDULE.quiet) - ledger.now()));
        close?.();
      }
      proxy.setMode('pass');
    })();

    const workload = runWorkload(ledger, hubUrl, ended, work);

    // Container updates, each requested just before a fault (and periodically in a long run).
    const updates: UpdateLog = { acknowledged: [], refusals: new Map(), skipped: [] };
    const loop = {
      call: (path: string, route: string, init?: RequestInit) => call(ledger, `${hubUrl}${path}`, route, init),
      now: ledger.now,
      ended,
      log,
    };
    const faultMoments = updateMoments(at);
    const proxyMoments = registryUpdateMoments(at, options.updateEveryMs);
    const updating = Promise.all(
      real.flatMap((agent) => [
        runUpdateLoop(loop, agent.direct, faultMoments, updates),
        runUpdateLoop(loop, agent.proxied, proxyMoments, updates),
      ]),
    );

    const waitUntil = async (fraction: number) => {
      const wait = at(fraction) - ledger.now();
      if (wait > 0) await sleep(wait);
    };
    const killHub = async (n: number) => {
      const close = ledger.open('hub-restart');
      ledger.fault(`hub SIGKILL #${n} (pid ${slot.pid})`);
      await slot.hub?.kill('SIGKILL');
      await slot.start();
      close();
      ledger.fault(`hub restarted on the same store (pid ${slot.pid})`);
    };
    const faults = (async () => {
      await waitUntil(SCHEDULE.firstKill);
      await killHub(1);
      await waitUntil(SCHEDULE.secondKill);
      await killHub(2);
      await waitUntil(SCHEDULE.dockerdRestart);
      for (const agent of real) {
        const close = ledger.open('dockerd');
        ledger.fault(`dockerd of ${agent.name} restarted`);
        await agent.dockerd.restart();
        close();
      }
      await waitUntil(SCHEDULE.diskFull);
      const close = ledger.open('disk-full');
      const ballast = disk?.fill() ?? 0;
      ledger.fault(`store disk filled (${(ballast / 1024 / 1024).toFixed(1)} MiB ballast)`);
      await sleep(Math.min(60_000, options.durationMs * 0.1));
      disk?.free();
      close();
      ledger.fault('store disk freed');
      for (const [fraction, offset, what] of [
        [SCHEDULE.clockForward, HOUR_MS, 'hub clock stepped 1 h forward'],
        [SCHEDULE.clockBack, 0, 'hub clock stepped 1 h back'],
      ] as const) {
        await waitUntil(fraction);
        await writeFile(clockFile, String(offset));
        slot.hub?.child.kill('SIGUSR2');
        ledger.fault(what);
      }
    })().finally(() => {
      faultsDone = true;
    });

    await Promise.all([faults, proxyCycle, workload, sampler, updating]);
    const runEnded = ledger.now();
    log(`run over after ${(runEnded / 1000).toFixed(0)} s; settling`);

    // Settle: the fleet resynced, the outbox drained, every acknowledged update settled.
    const realContainers = 2 * real.length;
    const expectedTotal = expectedFleet.size + realContainers;
    const settleDeadline = Date.now() + options.settleTimeoutMs;
    let ids: string[] = [];
    for (;;) {
      ids = await listAllContainerIds(hubUrl).catch(() => []);
      const outbox = await fetch(`${hubUrl}/api/v1/notifications/outbox?status=retrying`)
        .then((r) => r.json() as Promise<{ total?: number; data?: unknown[] }>)
        .catch(() => ({ data: [1] }));
      const pending = await fetch(`${hubUrl}/api/v1/notifications/outbox?status=pending`)
        .then((r) => r.json() as Promise<{ data?: unknown[] }>)
        .catch(() => ({ data: [1] }));
      const drained = (outbox.data?.length ?? 1) === 0 && (pending.data?.length ?? 1) === 0;
      const updatesSettled = await allSettled(hubUrl, updates.acknowledged);
      // Exactly the fleet: an updated container's old record, listed until the agent reports it
      // gone, is one too many, not enough.
      const fleetListed = ids.length === expectedTotal && new Set(ids).size === expectedTotal;
      if ((fleetListed && drained && updatesSettled) || Date.now() > settleDeadline) break;
      await sleep(2_000);
    }
    const settleMs = ledger.now() - runEnded;

    // ---- checks ----
    const violations = (name: string) => ledger.violations.get(name) ?? [];

    const settings = (await (await fetch(`${hubUrl}/api/v1/settings`)).json()) as { updateMode: string };
    const listedKeys = await listAllKeyIds(hubUrl);
    const missingKeys = [...work.keys].filter((key) => !listedKeys.has(key));
    const settingsOk = work.lastSettings === undefined || settings.updateMode === work.lastSettings;
    check(
      'acknowledged writes readable',
      settingsOk && missingKeys.length === 0 && violations('acknowledged writes readable').length === 0,
      `${work.writes} writes acknowledged (settings PATCHes read back at once; ${work.keys.size} API keys created); ` +
        `at the end settings read ${settings.updateMode}, last acknowledged ${work.lastSettings}; ` +
        `${missingKeys.length} acknowledged keys missing from GET /api/v1/api-keys` +
        (violations('acknowledged writes readable').length
          ? `; ${violations('acknowledged writes readable').join('; ')}`
          : ''),
    );

    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    const duplicated = [...counts].filter(([, n]) => n > 1).length;
    const lost = [...expectedFleet].filter((id) => !counts.has(id)).length;
    const realIds = ids.filter((id) => !expectedFleet.has(id));
    const realListed = realIds.length;
    // Off by some: what the hub lists for the real agents, beside what their Engines hold.
    const realMismatch =
      realListed === realContainers
        ? ''
        : `; ${await describeRealRecords(hubUrl, realIds, real).catch((error) => `(not described: ${error})`)}`;
    check(
      'no container record lost or duplicated',
      duplicated === 0 &&
        lost === 0 &&
        realListed === realContainers &&
        violations('no container record lost or duplicated').length === 0,
      `${ids.length} records listed after ${(settleMs / 1000).toFixed(0)} s of settling; of the ${expectedFleet.size} the simulated agents reported ${lost} missing, ${duplicated} listed twice; ${realListed} of the real agents' ${realContainers} containers${realMismatch}` +
        (violations('no container record lost or duplicated').length
          ? `; ${violations('no container record lost or duplicated').join('; ')}`
          : ''),
    );

    const operationStates = await collectOperationStates(
      hubUrl,
      real.flatMap((agent) => [agent.direct, agent.proxied]),
      updates.acknowledged,
    );
    const verdict = judgeUpdateOperations(updates.acknowledged, operationStates, updates.skipped);
    const refusals = [...updates.refusals].map(([status, n]) => `${n}× ${status}`).join(', ');
    check(
      'every update operation ends in a terminal state',
      verdict.passed,
      `${verdict.reason}; each requested just before (s from the start → what it became): ${updates.acknowledged.map((u) => `${u.meets} (${(u.t / 1000).toFixed(0)} s → ${stateText(operationStates.get(u.operationId))})`).join(', ') || 'none'}; refusals on the way (retried): ${refusals || 'none'}`,
    );

    // Notifications: the receiver's record against the acknowledged runs and the outbox.
    const delivered = new Map<string, number>();
    receiver.received.forEach((request, index) => {
      if (answered.get(index) !== 200) return;
      const id = (request.json as { containers?: { id?: string }[] } | undefined)?.containers?.[0]?.id;
      if (id) delivered.set(id, (delivered.get(id) ?? 0) + 1);
    });
    const dead = (await (await fetch(`${hubUrl}/api/v1/notifications/outbox?status=dead-letter`)).json()) as {
      data: { lastError?: string; payload?: { containers?: { id: string }[] } }[];
    };
    const deadIds = new Map<string, string | undefined>();
    for (const entry of dead.data) for (const c of entry.payload?.containers ?? []) deadIds.set(c.id, entry.lastError);
    let deliveredOnce = 0;
    let twice = 0;
    let neither = 0;
    let deadWithoutReason = 0;
    const killTimes = ledger.faults.filter((f) => f.what.startsWith('hub SIGKILL')).map((f) => f.t);
    let twiceUnexplained = 0;
    const stuck: string[] = [];
    for (const [id, t] of work.notes) {
      const n = delivered.get(id) ?? 0;
      if (n === 1) deliveredOnce += 1;
      else if (n > 1) {
        twice += 1;
        // At least once: an attempt the receiver answered just before a SIGKILL is made again.
        if (!killTimes.some((k) => k >= t - 1_000 && k <= t + 30_000)) twiceUnexplained += 1;
      } else if (deadIds.has(id)) {
        if (!deadIds.get(id)) deadWithoutReason += 1;
      } else {
        neither += 1;
        stuck.push(id);
      }
    }
    // What the outbox says of the ones neither delivered nor dead-lettered.
    const everything = (await (await fetch(`${hubUrl}/api/v1/notifications/outbox`)).json()) as {
      data: {
        status: string;
        attempts: number;
        nextAttemptAt?: string;
        lastError?: string;
        payload: { containers: { id?: unknown }[] };
      }[];
    };
    const stuckEntries = everything.data
      .filter((entry) => entry.payload.containers.some((c) => stuck.includes(String(c.id))))
      .map(
        (entry) =>
          `${entry.status} after ${entry.attempts} attempts, next ${entry.nextAttemptAt ?? '–'} (${entry.lastError ?? 'no error'})`,
      );
    check(
      'every due notification delivered exactly once or dead-lettered with a reason',
      neither === 0 && twiceUnexplained === 0 && deadWithoutReason === 0 && work.notes.size > 0,
      `${work.notes.size} trigger runs acknowledged; ${deliveredOnce} delivered once, ${[...work.notes.keys()].filter((id) => deadIds.has(id) && !delivered.has(id)).length} dead-lettered (${deadWithoutReason} without lastError), ${twice} delivered twice (${twiceUnexplained} not next to a SIGKILL), ${neither} neither delivered nor dead-lettered${stuckEntries.length ? ` (outbox: ${stuckEntries.slice(0, 3).join('; ')}; host clock ${new Date().toISOString()})` : ''}; the receiver answered ${receiver.received.length} requests, ${[...answered.values()].filter((s) => s === 500).length} with 500`,
    );

    // ENOSPC: answers during the full disk, and every record parses afterwards.
    const during = ledger.answers.filter((a) => ledger.explainedBy('disk-full', a.t) && a.status >= 500);
    const diskAnswers = during.filter((a) => a.status === 503 || a.status === 507);
    const badDisk = during.filter((a) => !(a.status === 503 || a.status === 507 || a.status === 502) || !a.jsonError);
    // Torn: empty, or JSON cut short. unstorage stores a string value as it is, so text that does not
    // start like JSON is a string record, not a torn one.
    let torn = 0;
    const tornExamples: string[] = [];
    const files = await recordFiles(storePath);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      try {
        JSON.parse(text);
      } catch {
        if (text === '' || /^[[{"]/.test(text)) {
          torn += 1;
          if (tornExamples.length < 3)
            tornExamples.push(`${file.slice(storePath.length + 1)}: ${JSON.stringify(text.slice(0, 60))}`);
        }
      }
    }
    const diskWindow = ledger.windows.find((w) => w.kind === 'disk-full');
    const writesAfter = ledger.answers.filter(
      (a) => diskWindow && a.t > diskWindow.to + FAULT_GRACE_MS && a.route === 'PATCH /settings' && a.status === 200,
    ).length;
    check(
      'ENOSPC: 503/507 with a JSON body, nothing torn, recovery by itself',
      diskAnswers.length > 0 && badDisk.length === 0 && torn === 0 && writesAfter > 0,
      `${diskAnswers.length} writes refused with 503/507 while the disk was full (${during.length} 5xx in that window, ${badDisk.length} of another status or without a JSON body${badDisk[0] ? `, first: ${badDisk[0].status} ${badDisk[0].route} ${badDisk[0].body}` : ''}); ${files.length} records on disk afterwards, ${torn} torn${tornExamples.length ? ` (${tornExamples.join('; ')})` : ''}; ${writesAfter} settings writes acknowledged after space returned, same hub process`,
    );

    // RSS and fds over the last two thirds: the samples of the hub process alive then.
    // The window opens at the later of a third of the run and the last hub's own warm-up (its fleet back).
    const lastPid = samples.at(-1)?.pid;
    const lastStart = samples.find((s) => s.pid === lastPid)?.t ?? 0;
    const windowFrom = Math.max(at(SCHEDULE.warmUpEnds), lastStart + HUB_WARM_UP_MS);
    const window = samples.filter((s) => s.pid === lastPid && s.t >= windowFrom);
    const growthLimit = options.growthLimit ?? 0.1;
    const rssGrowth = growth(window.map((s) => s.rssBytes));
    const fdGrowth = growth(window.map((s) => s.fds));
    check(
      'RSS and open file descriptors flat after warm-up',
      Number.isFinite(rssGrowth) && rssGrowth < growthLimit && fdGrowth < growthLimit,
      `from ${(windowFrom / 1000).toFixed(0)} s to the end (${window.length} samples of pid ${lastPid}, the hub started at ${(lastStart / 1000).toFixed(0)} s; warm-up: a third of the run and ${HUB_WARM_UP_MS / 1000} s after the last start): RSS ${(rssGrowth * 100).toFixed(1)} %, fds ${(fdGrowth * 100).toFixed(1)} % (peak of the second half over the peak of the first; limit ${(growthLimit * 100).toFixed(0)} %)`,
    );

    const fives = ledger.answers.filter((a) => a.status >= 500);
    const explained = (a: Answer) =>
      ((a.status === 503 || a.status === 507) && ledger.explainedBy('disk-full', a.t)) ||
      (a.status === 502 && a.route === 'POST /triggers/http/soak') ||
      ledger.explainedBy('hub-restart', a.t) ||
      // An update asked for while the real agent has not yet signed in to the restarted hub again.
      (a.status === 503 &&
        a.route === 'POST /containers/{id}/update' &&
        a.body.includes('agent-not-connected') &&
        (ledger.explainedBy('hub-restart', a.t, AGENT_BACK_MS) || ledger.explainedBy('dockerd', a.t, AGENT_BACK_MS))) ||
      ((a.route === 'POST /containers/watch' || a.route === 'POST /containers/{id}/watch') &&
        (ledger.explainedBy('registry', a.t) || ledger.explainedBy('dockerd', a.t)));
    const unexplained = fives.filter((a) => !explained(a));
    const notJson = fives.filter((a) => !a.jsonError);
    const byStatus = new Map<string, number>();
    for (const a of fives) byStatus.set(`${a.status} ${a.route}`, (byStatus.get(`${a.status} ${a.route}`) ?? 0) + 1);
    check(
      'no 5xx except the ones a fault explains, each with a JSON body',
      unexplained.length === 0 && notJson.length === 0,
      `${ledger.answers.length} answers, ${fives.length} 5xx (${[...byStatus].map(([k, n]) => `${n}× ${k}`).join(', ') || 'none'}); ${unexplained.length} unexplained${unexplained[0] ? ` (first at ${(unexplained[0].t / 1000).toFixed(1)} s: ${unexplained[0].status} ${unexplained[0].route} ${unexplained[0].body})` : ''}; ${notJson.length} without a JSON error body; ${ledger.unreachable} calls found no hub (killed, restarting)`,
    );

    const rss = samples.map((s) => s.rssBytes);
    return {
      options: {
        durationMs: options.durationMs,
        agents: options.agents,
        containersPerAgent: options.containersPerAgent,
        realAgents: options.realAgents,
        diskMiB: options.diskMiB,
        settleTimeoutMs: options.settleTimeoutMs,
        ...(options.updateEveryMs !== undefined && { updateEveryMs: options.updateEveryMs }),
      },
      wallMs: ledger.now(),
      checks,
      faults: ledger.faults,
      samples,
      figures: {
        settleMs,
        answers: ledger.answers.length,
        writesAcknowledged: work.writes,
        apiKeys: work.keys.size,
        notifications: work.notes.size,
        receiverRequests: receiver.received.length,
        peakRssBytes: Math.max(...rss),
        lastRssBytes: rss.at(-1) ?? 0,
        lastFds: samples.at(-1)?.fds ?? 0,
        agentWelcomes: Number(generator.last['welcomes'] ?? 0),
        agentCloses: Number(generator.last['closes'] ?? 0),
        agentsConnectedAtEnd: Number(generator.last['connected'] ?? 0),
        recordsOnDisk: files.length,
        updatesAcknowledged: updates.acknowledged.length,
        updateOperations:
          Object.entries(verdict.counts)
            .map(([status, n]) => `${n} ${status}`)
            .join(', ') || 'none',
        proxyRequests: proxy
          ? [...proxy.counts]
              .filter(([k]) => k.startsWith('mode'))
              .map(([k, n]) => `${n} ${k.slice(5)}`)
              .join(', ')
          : 'none',
      },
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
    try {
      disk?.close();
    } catch {
      // Already gone.
    }
    await rm(dir, { recursive: true, force: true });
  }
}

const stateText = (state: OperationState | undefined) =>
  state === undefined ? 'not asked' : 'missing' in state ? state.missing : state.status;

/**
 * When the soak asks to update the real agents' direct containers (ms since the run started): each
 * just before a fault, so that it is in its health gate (4 s) when the fault comes.
 */
function updateMoments(at: (fraction: number) => number): UpdateMoment[] {
  return [
    { at: at(SCHEDULE.firstKill) - 1_500, meets: 'hub SIGKILL #1' },
    { at: at(SCHEDULE.secondKill) - 1_500, meets: 'hub SIGKILL #2' },
    { at: at(SCHEDULE.dockerdRestart) - 1_000, meets: 'dockerd restart' },
    { at: at(SCHEDULE.diskFull) - 1_000, meets: 'disk full' },
  ];
}

/**
 * And the containers behind the fault proxy: once in its first 5xx storm (the update pending since
 * the set-up is listed before it), and with `everyMs`, that often from a third of the run to the
 * quiet end, through whatever the proxy does then (hangs, slow bodies, 429).
 */
function registryUpdateMoments(at: (fraction: number) => number, everyMs: number | undefined): UpdateMoment[] {
  const storm = (PROXY_CYCLE.indexOf('storm') + 0.3) / PROXY_STEPS;
  const moments: UpdateMoment[] = [{ at: at(storm), meets: 'registry proxy storm' }];
  if (everyMs !== undefined)
    for (let t = at(SCHEDULE.warmUpEnds); t < at(SCHEDULE.quiet); t += everyMs)
      if (Math.abs(at(storm) - t) > 60_000) moments.push({ at: t, meets: 'registry proxy cycle' });
  return moments.sort((a, b) => a.at - b.at);
}

/** For the report: an RSS or fd figure per minute of the run. */
export function perMinute(samples: readonly SoakSample[]): SoakSample[] {
  const byMinute = new Map<number, SoakSample>();
  for (const sample of samples) byMinute.set(Math.floor(sample.t / 60_000), sample);
  return [...byMinute.values()];
}
