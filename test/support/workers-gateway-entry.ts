// The hub's Workers entry with a hub object that a test can reset (`ctx.abort()`, as the platform
// does when it evicts or restarts an object): POST /__test/abort. The edge gateways are the real ones.
import { HubDurableObject, type HubDurableObjectState } from '../../hub/src/adapter/workers/hub-durable-object';

export { default, EdgeGatewayObject } from '../../hub/src/entry/workers';

export class AbortableHubDurableObject extends HubDurableObject {
  private readonly ctx: HubDurableObjectState & { abort(reason?: string): void };
  /** Which object answers: a new one after the reset. */
  private readonly instance = crypto.randomUUID();

  constructor(state: HubDurableObjectState, env: Readonly<Record<string, unknown>>) {
    super(state, env);
    this.ctx = state as HubDurableObjectState & { abort(reason?: string): void };
  }

  override fetch(request: Request): Response | Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/__test/abort') this.ctx.abort('reset by the test');
    if (pathname === '/__test/instances') return Response.json({ instance: this.instance });
    return super.fetch(request);
  }
}
