// The hub's Workers entry with a hub object that counts what the runtime calls it for, so a test
// can tell whether the object was re-created (woke from hibernation) and whether a frame reached
// webSocketMessage or was answered by the runtime's auto-response, and which object each alarm
// woke (a rollout's next wave from the alarm of a re-created object). The counts live in the
// isolate, which outlives the object's hibernation; GET /__test/counts reads them (without the hub).
import { HubDurableObject, type HubDurableObjectState } from '../../hub/src/adapter/workers/hub-durable-object';

export { default } from '../../hub/src/entry/workers';

const counts = { constructed: 0, webSocketMessage: 0, alarms: [] as { instance: string; at: number }[] };

export class CountingHubDurableObject extends HubDurableObject {
  /** Which object answers: a new one after a wake, even if the isolate (and the counts) were re-created too. */
  private readonly instance = crypto.randomUUID();

  constructor(state: HubDurableObjectState, env: Readonly<Record<string, unknown>>) {
    super(state, env);
    counts.constructed += 1;
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    counts.webSocketMessage += 1;
    super.webSocketMessage(ws, message);
  }

  override async alarm(): Promise<void> {
    counts.alarms.push({ instance: this.instance, at: Date.now() });
    await super.alarm();
  }

  override fetch(request: Request): Response | Promise<Response> {
    if (new URL(request.url).pathname === '/__test/counts')
      return Response.json({ ...counts, instance: this.instance });
    return super.fetch(request);
  }
}
