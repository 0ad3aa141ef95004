import * as v from 'valibot';
import { AgentInfoSchema, EdgeWatcherSchema } from '../../../shared/edge/protocol';
import type { Agent } from '../../../shared/schemas/agent';
import type { Container } from '../../../shared/schemas/container';

/** What the hub keeps of an edge agent (`agents:<name>`), so a restarted hub lists it before it returns. */
export const AgentDescriptionSchema = v.object({
  name: v.string(),
  /** The key an edge agent signed in with; none for a listen-mode agent. */
  keyId: v.optional(v.string()),
  info: AgentInfoSchema,
  /** Unix ms when `info` arrived: uptime advances from there while the agent stays connected. */
  infoAt: v.number(),
  watchers: v.array(EdgeWatcherSchema),
  /** ISO 8601 of the latest frame. */
  lastSeen: v.pipe(v.string(), v.isoTimestamp()),
  /** The address the agent connected from, where the runtime knows it. */
  address: v.optional(v.string()),
  /** A listen-mode agent: where the hub reaches it (DD_AGENT_<NAME>_HOST and _PORT), listed as its host and port. */
  listen: v.optional(v.object({ host: v.string(), port: v.number() })),
});
export type AgentDescription = v.InferOutput<typeof AgentDescriptionSchema>;

/**
 * http-interface §2.3: `version` without any prerelease (or build-metadata) suffix, `build` the full
 * identity: the build an older agent reports on its own, else the full version.
 */
export function deriveVersion(reported: string, reportedBuild?: string): { version: string; build: string } {
  const version = reported.replace(/[-+].*$/, '') || reported;
  return { version, build: reportedBuild ?? reported };
}

export interface AgentViewContext {
  connected: boolean;
  now: number;
  /** The hub's records of this agent's containers. */
  containers: readonly Container[];
}

/** Counts for http-interface §2.3: stopped is every container that is not running; images are distinct image ids. */
export function containerCounts(containers: readonly Container[]): { containers: Agent['containers']; images: number } {
  let running = 0;
  const images = new Set<string>();
  for (const container of containers) {
    if (container.status === 'running') running += 1;
    images.add(container.image.id || `${container.image.name}:${container.image.tag.value}`);
  }
  return {
    containers: { total: containers.length, running, stopped: containers.length - running },
    images: images.size,
  };
}

/** One agent as GET /api/v1/agents lists it (http-interface §2.3). */
export function agentView(description: AgentDescription, context: AgentViewContext): Agent {
  const { info } = description;
  const { version, build } = deriveVersion(info.version, info.build);
  // Uptime as reported, advanced by the time since the report, up to the last sign of life.
  const until = context.connected ? context.now : Date.parse(description.lastSeen);
  const elapsedSeconds = Math.max(0, (until - description.infoAt) / 1000);
  return {
    name: description.name,
    host: description.listen?.host ?? (info.hostname || description.address || ''),
    port: description.listen?.port ?? 0,
    connected: context.connected,
    version,
    build,
    os: info.os,
    arch: info.arch,
    cpus: info.cpus,
    memoryGb: info.memoryGb,
    uptimeSeconds: Math.round(info.uptimeSeconds + elapsedSeconds),
    lastSeen: description.lastSeen,
    logLevel: info.logLevel,
    pollInterval: description.watchers[0]?.cron ?? '',
    ...containerCounts(context.containers),
  };
}
