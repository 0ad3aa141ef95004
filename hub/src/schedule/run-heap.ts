/** One scheduled time of a job, as it was when pushed; the scheduler checks it is still current. */
export interface HeapRun {
  at: number;
  name: string;
}

/**
 * A binary min-heap of (time, job name), earliest first. The scheduler pushes every time it sets
 * and drops outdated ones as they reach the top, so finding the earliest run costs a logarithm, not
 * a pass over every job: with one watch-cycle job per agent watcher, 10,000 agents signing in
 * made each sign-in's scheduling a scan of all the others (bench edge-agents).
 */
export class RunHeap {
  private items: HeapRun[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): HeapRun | undefined {
    return this.items[0];
  }

  push(run: HeapRun): void {
    const items = this.items;
    items.push(run);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!earlier(run, items[parent] as HeapRun)) break;
      items[index] = items[parent] as HeapRun;
      index = parent;
    }
    items[index] = run;
  }

  pop(): HeapRun | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && earlier(items[right] as HeapRun, items[left] as HeapRun) ? right : left;
      if (!earlier(items[child] as HeapRun, last)) break;
      items[index] = items[child] as HeapRun;
      index = child;
    }
    items[index] = last;
    return top;
  }

  /** Replaces the content (dropping outdated entries that never reached the top). */
  reset(runs: Iterable<HeapRun>): void {
    this.items = [];
    for (const run of runs) this.push(run);
  }
}

/** Ties by name, so the order never depends on the order of pushes. */
function earlier(a: HeapRun, b: HeapRun): boolean {
  return a.at < b.at || (a.at === b.at && a.name < b.name);
}
