import { readdirSync, readFileSync } from 'node:fs';
import { sampleProcess } from './proc-stats';

/** Every live pid of a process group (Linux /proc), for programs that start children (npm, tsx). */
export function processGroupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 5 of proc(5) is the process group; fields after the command name are space separated.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[5 - 3]) === pgid) pids.push(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return pids;
}

/** RSS of each process of the group (bytes) and their sum; shared pages count once per process, as `ps` does. */
export function groupRss(pgid: number): { totalBytes: number; processes: number; largestBytes: number } {
  const sizes = processGroupPids(pgid).flatMap((pid) => {
    try {
      return [sampleProcess(pid).rssBytes];
    } catch {
      return [];
    }
  });
  return {
    totalBytes: sizes.reduce((sum, size) => sum + size, 0),
    processes: sizes.length,
    largestBytes: Math.max(0, ...sizes),
  };
}
