import * as v from 'valibot';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * An agent as the hub lists it (http-interface §2.3), the payload of dd:agent-connected and
 * dd:agent-disconnected too. Edge agents and listen-mode agents look the same here.
 */
export const AgentSchema = v.object({
  name: v.string(),
  /** The agent's hostname, else the address it connected from. */
  host: v.string(),
  /** 0 for an edge agent: it dials out and listens nowhere. */
  port: count,
  connected: v.boolean(),
  /** Without any prerelease suffix: `1.4.0` for `1.4.0-rc.2`. */
  version: v.string(),
  /** The full build identity; equals version when there is no prerelease suffix. */
  build: v.string(),
  os: v.string(),
  arch: v.string(),
  cpus: count,
  memoryGb: v.number(),
  uptimeSeconds: v.number(),
  /** ISO 8601: the latest frame received from the agent. */
  lastSeen: v.string(),
  logLevel: v.string(),
  /** The cron schedule of the agent's (first) watcher. */
  pollInterval: v.string(),
  containers: v.object({ total: count, running: count, stopped: count }),
  /** Distinct images across the agent's containers. */
  images: count,
});
export type Agent = v.InferOutput<typeof AgentSchema>;
