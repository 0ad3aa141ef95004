import WebSocket from 'ws';

/** V8's `Runtime.getHeapUsage`, in bytes. */
export interface HeapUsage {
  usedSize: number;
  totalSize: number;
  embedderHeapUsedSize: number;
  backingStorageSize: number;
}

export interface WorkerdInspector {
  /** A full collection first, so the figure is what the isolate keeps, not what it has not collected yet. */
  heapAfterGc(): Promise<HeapUsage>;
  /** As it is now, garbage included: sampled during the sync, the highest sample approaches the peak. */
  heapNow(): Promise<HeapUsage>;
  close(): void;
}

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
  return {
    async heapAfterGc() {
      await call('HeapProfiler.collectGarbage');
      return (await call('Runtime.getHeapUsage')) as HeapUsage;
    },
    heapNow: async () => (await call('Runtime.getHeapUsage')) as HeapUsage,
    close: () => socket.close(),
  };
}
