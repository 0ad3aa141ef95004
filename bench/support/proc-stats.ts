import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcessSample {
  /** Resident set size now. */
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM). */
  peakRssBytes: number;
  /** CPU time spent in user and kernel mode since the process started. */
  cpuUserMs: number;
  cpuSystemMs: number;
  /** When the sample was taken (performance.now()), to turn CPU time deltas into utilisation. */
  at: number;
}

let clockTicksPerSecond: number | undefined;

/** USER_HZ; 100 on practically every Linux, but asking costs one exec per run. */
function clockTicks(): number {
  if (clockTicksPerSecond === undefined) {
    try {
      clockTicksPerSecond =
        Number.parseInt(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim(), 10) || 100;
    } catch {
      clockTicksPerSecond = 100;
    }
  }
  return clockTicksPerSecond;
}

/** Reads /proc/<pid>/stat and /proc/<pid>/status (Linux only; benchmarks run on Linux). */
export function sampleProcess(pid: number): ProcessSample {
  const at = performance.now();
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name is in parentheses and may itself contain spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5), counted from the state field (3) here.
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const ticks = clockTicks();
  return {
    rssBytes: statusKib(status, 'VmRSS') * 1024,
    peakRssBytes: statusKib(status, 'VmHWM') * 1024,
    cpuUserMs: (utime / ticks) * 1000,
    cpuSystemMs: (stime / ticks) * 1000,
    at,
  };
}

function statusKib(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match?.[1] === undefined) throw new Error(`bench.proc: ${field} missing from /proc status`);
  return Number(match[1]);
}

/** Share of one core the process used between two samples (1 = one core fully busy). */
export function cpuShare(before: ProcessSample, after: ProcessSample): number {
  const cpuMs = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  const wallMs = after.at - before.at;
  return wallMs > 0 ? cpuMs / wallMs : 0;
}

export interface MachineCpuSample {
  busyTicks: number;
  totalTicks: number;
}

/** Whole-machine CPU counters from /proc/stat; with the hub's own share it shows who had the cores. */
export function sampleMachineCpu(): MachineCpuSample {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const ticks = values.slice(0, 8).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busyTicks: total - idle, totalTicks: total };
}

/** Share of all cores that were busy between two samples (1 = every core fully busy). */
export function machineBusyShare(before: MachineCpuSample, after: MachineCpuSample): number {
  const total = after.totalTicks - before.totalTicks;
  return total > 0 ? (after.busyTicks - before.busyTicks) / total : 0;
}

/** CPU-seconds the whole machine spent busy between two samples (every process, daemons included). */
export function machineBusySeconds(before: MachineCpuSample, after: MachineCpuSample): number {
  return (after.busyTicks - before.busyTicks) / clockTicks();
}

/**
 * Waits until the whole machine is mostly idle (under `busyBelow` of all cores over one `windowMs`),
 * at most `maxMs`: a benchmark that has just made its bed (a thousand containers started) measures
 * the code, not the bed's aftermath. Answers the share of the last window and how long it waited.
 */
export async function waitForQuietMachine(
  options: { busyBelow?: number; windowMs?: number; maxMs?: number } = {},
): Promise<{ busyShare: number; waitedMs: number }> {
  const { busyBelow = 0.3, windowMs = 1_000, maxMs = 60_000 } = options;
  const started = performance.now();
  for (;;) {
    const before = sampleMachineCpu();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const busyShare = machineBusyShare(before, sampleMachineCpu());
    const waitedMs = performance.now() - started;
    if (busyShare < busyBelow || waitedMs >= maxMs) return { busyShare, waitedMs };
  }
}
