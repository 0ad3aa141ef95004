import * as v from 'valibot';

/**
 * What the hub keeps of one edge session with its socket, where the runtime can hibernate the
 * socket's owner (a Durable Object, issue 16 item 2): after a wake, with every in-memory session
 * gone, this record and the agent's stored description are all the session is rebuilt from. Small
 * on purpose: a Durable Object socket attachment holds at most 2,048 bytes.
 */
export const EdgeSessionRecordSchema = v.object({
  /** The edge protocol the upgrade selected (edge/1.0): what hello and the frames are read against. */
  protocol: v.pipe(v.string(), v.maxLength(32)),
  address: v.optional(v.pipe(v.string(), v.maxLength(64))),
  openedAt: v.number(),
  /** The challenge sent, while the agent has not signed in (it signs exactly this). */
  challenge: v.pipe(v.string(), v.maxLength(64)),
  /** Set once welcomed: the frame cap is then the signed-in one (4 MiB). */
  agentName: v.optional(v.pipe(v.string(), v.maxLength(128))),
  keyId: v.optional(v.pipe(v.string(), v.maxLength(32))),
  /** The latest frame the hub itself handled (auto-answered pings are counted by the runtime). */
  lastFrameAt: v.number(),
});
export type EdgeSessionRecord = v.InferOutput<typeof EdgeSessionRecordSchema>;

/**
 * The heartbeat the runtime answers without waking the hub (docs/edge-protocol.md "Heartbeats"):
 * edge/1.0's ping is one fixed text, unsigned and without a sequence number, and any frame counts as
 * a sign of life, so the runtime's pong is as good as the hub's. A ping with other bytes (padding,
 * other key order) reaches the hub, which answers it itself.
 */
export const EDGE_AUTO_HEARTBEAT = {
  request: JSON.stringify({ type: 'ping' }),
  response: JSON.stringify({ type: 'pong' }),
} as const;
