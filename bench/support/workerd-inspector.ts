import WebSocket from 'ws';

/** V8's `Runtime.getHeapUsage`, in bytes. */
export interface HeapUsage {
  usedSize: number;
  totalSize: number;
  embedderHeapUsedSize: number;
  backingStorageSize: number;
}

export interface WorkerdInspector {
  /**
   * A full collection first, so the figure is what the isolate keeps, not what it has not collected
   * yet (`collected`). workerd's inspector never answers HeapProfiler.collectGarbage once a second
   * Durable Object class is bound (seen with Miniflare 4.20260426 and the edge gateways): then the
   * lowest of a few samples over three seconds, with `collected: false`.
   */
  heapAfterGc(): Promise<HeapUsage & { collected: boolean }>;
  /** As it is now, garbage included: sampled during the sync, the highest sample approaches the peak. */
  heapNow(): Promise<HeapUsage>;
  close(): void;
}

const GC_ANSWER_MS = 10_000;
const IDLE_SAMPLES = 6;
const IDLE_SAMPLE_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Reply {
  id?: number;
  result?: unknown;
  error?: { message: string };
}

/**
 * workerd's inspector (Miniflare's `inspectorPort`) speaks the V8 inspector protocol, one target per
 * worker. The user worker's isolate (`core:user:<name>`, with Miniflare's default name `core:user:`)
 * also hosts its Durable Objects, so its heap is the one the 128 MB limit applies to.
 */
export async function connectWorkerdInspector(inspectorUrl: URL, target = 'core:user:'): Promise<WorkerdInspector> {
  const socket = new WebSocket(new URL(`/${target}`, inspectorUrl));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  socket.on('message', (data) => {
    const reply = JSON.parse(String(data)) as Reply;
    const waiter = reply.id === undefined ? undefined : pending.get(reply.id);
    if (!waiter || reply.id === undefined) return;
    pending.delete(reply.id);
    if (reply.error) waiter.reject(new Error(`workerd inspector: ${reply.error.message}`));
    else waiter.resolve(reply.result);
  });
  const call = (method: string) =>
    new Promise<unknown>((resolve, reject) => {
      nextId += 1;
      pending.set(nextId, { resolve, reject });
      socket.send(JSON.stringify({ id: nextId, method, params: {} }));
    });
  const heapNow = async () => (await call('Runtime.getHeapUsage')) as HeapUsage;
  let collects = true;
  return {
    async heapAfterGc() {
      if (collects) {
        const collected = await Promise.race([
          call('HeapProfiler.collectGarbage').then(() => true),
          sleep(GC_ANSWER_MS).then(() => false),
        ]);
        if (collected) return { ...(await heapNow()), collected: true };
        collects = false;
      }
      // The lowest of a few samples a moment apart: V8 collects when idle, so it approaches the live heap.
      let lowest = await heapNow();
      for (let sample = 0; sample < IDLE_SAMPLES; sample += 1) {
        await sleep(IDLE_SAMPLE_MS);
        const now = await heapNow();
        if (now.usedSize < lowest.usedSize) lowest = now;
      }
      return { ...lowest, collected: false };
    },
    heapNow,
    close: () => socket.close(),
  };
}
