/** What every benchmark module exports; bench/run.ts lists them statically. */
export interface Benchmark {
  /** kebab-case; the section marker in docs/benchmarks.md and what `npm run bench -- <filter>` matches. */
  name: string;
  run(ctx: BenchContext): Promise<BenchSection>;
}

export interface BenchSection {
  title: string;
  /** The section body; the runner adds the heading, the markers and a provenance line. */
  markdown: string;
}

export interface BenchContext {
  machine: MachineInfo;
  /** Absolute path of the repository root, for spawning the hub and tools. */
  root: string;
  /** Progress on stderr, prefixed with the benchmark's name; stdout stays free. */
  log(message: string): void;
}

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  totalMemoryBytes: number;
  node: string;
  os: string;
  kernel: string;
  /** ISO timestamp of the run. */
  date: string;
}

export type Align = 'left' | 'right';

/** A GitHub-flavoured markdown table; numeric columns read better right-aligned. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const rule = headers.map((_, index) => (align[index] === 'right' ? '---:' : '---'));
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(headers), `|${rule.map((cell) => ` ${cell} `).join('|')}|`, ...rows.map(line)].join('\n');
}

export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib.toFixed(1)} MiB`;
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function formatMs(value: number): string {
  return `${value} ms`;
}

/** A positive integer knob from the environment (BENCH_DURATION, ...), or the default; a bad value stops the run. */
export function positiveIntegerEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`bench: ${name} must be a positive integer, got "${raw}"`);
  return value;
}
