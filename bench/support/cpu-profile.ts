import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';

export interface ProfiledHub {
  url: string;
  /** SIGTERM; resolves with the path of the CPU profile Node writes as the process exits. */
  stop(): Promise<string>;
}

/**
 * The hub as bench/support/hub-process starts it, with V8's sampling profiler on
 * (`--cpu-prof` is not accepted in NODE_OPTIONS, so this spawns the entry itself).
 */
export async function startProfiledHub(
  root: string,
  env: Record<string, string>,
  profileDir: string,
): Promise<ProfiledHub> {
  const entry = join(root, 'hub', 'src', 'entry', 'node.ts');
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', 'tsx', entry], {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/root',
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      // A load generator from one address: the server-wide request limit must not shape the figures.
      DD_SERVER_RATELIMIT_MAX: '1000000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench.profile: the hub did not start in 120 s')), 120_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.includes('"hub listening"')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    void exited.then(() => reject(new Error('bench.profile: the hub exited before listening')));
  });
  child.stderr.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      // One profile per thread (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): tsx's module loader
      // runs in a worker thread of its own, and the requests are served on the main one, thread 0.
      const file = (await readdir(profileDir)).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
      if (!file) throw new Error('bench.profile: the hub wrote no CPU profile');
      return join(profileDir, file);
    },
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  busyMs: number;
  /** Share of the busy (non-idle) samples spent in each function itself, by `name file:line`. */
  self: Map<string, number>;
  /** Share spent in each function and what it called (a sample counts once per function). */
  total: Map<string, number>;
}

/**
 * Self and total time by function (name and file: under tsx the line numbers are those of the
 * transformed code) from a `.cpuprofile`, over its last `windowMs` only: the load, not the start-up.
 */
export async function summarizeProfile(path: string, root: string, windowMs: number): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const frameOf = (node: ProfileNode) => {
    const { functionName, url } = node.callFrame;
    const file = url.startsWith('file://') ? relative(root, new URL(url).pathname) : url;
    return `${functionName || '(anonymous)'}${file ? ` ${file}` : ''}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  const from = profile.endTime - windowMs * 1000;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    const ms = delta / 1000;
    if (at < from || !node || node.callFrame.functionName === '(idle)') return;
    busy += ms;
    const frame = frameOf(node);
    self.set(frame, (self.get(frame) ?? 0) + ms);
    const seen = new Set<string>();
    for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
      const ancestor = byId.get(up);
      if (!ancestor) break;
      const name = frameOf(ancestor);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + ms);
    }
  });
  const share = (map: Map<string, number>) => new Map([...map].map(([frame, ms]) => [frame, ms / busy]));
  return { busyMs: busy, self: share(self), total: share(total) };
}

/** The functions with the most self time, with their total time. */
export function topSelf(summary: ProfileSummary, count: number): { frame: string; self: number; total: number }[] {
  return [...summary.self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, self]) => ({ frame, self, total: summary.total.get(frame) ?? self }));
}

/** Total share of the function named `name` (the largest, should several frames carry the name). */
export function totalOf(summary: ProfileSummary, name: string): number {
  return Math.max(
    0,
    ...[...summary.total].filter(([frame]) => frame === name || frame.startsWith(`${name} `)).map(([, share]) => share),
  );
}
