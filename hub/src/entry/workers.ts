import { withBufferedBody } from '../adapter/workers/buffer-request-body';
import { HubDurableObject } from '../adapter/workers/hub-durable-object';
import { MAX_BODY_BYTES } from '../http/body-size';

/** The part of a Durable Object namespace binding the Worker uses. */
interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

interface WorkerEnv {
  HUB: DurableObjectNamespaceLike;
}

/** One hub per deployment: its state, edge sockets and streams must all live in one object. */
const HUB_OBJECT_NAME = 'hub';

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    // Never the client's body stream itself: the hub may answer before reading it (see withBufferedBody).
    const forwarded = await withBufferedBody(request, MAX_BODY_BYTES);
    if (forwarded instanceof Response) return forwarded;
    return env.HUB.get(env.HUB.idFromName(HUB_OBJECT_NAME)).fetch(forwarded);
  },
};

export { HubDurableObject };
