import { HubDurableObject } from '../adapter/workers/hub-durable-object';

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
  fetch(request: Request, env: WorkerEnv): Promise<Response> {
    return env.HUB.get(env.HUB.idFromName(HUB_OBJECT_NAME)).fetch(request);
  },
};

export { HubDurableObject };
