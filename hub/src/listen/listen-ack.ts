import type { AgentAck, AgentWatcher } from '../../../shared/agent-api/listen-schemas';
import type { AgentInfo, EdgeWatcher } from '../../../shared/edge/protocol';

/**
 * What the edge hub keeps of a listen-mode agent: its dd:ack as the agent info an edge agent's
 * hello carries (the hub derives the listed version and build from it alike), its watchers (spec
 * 2.2 list items) as an edge agent announces them, and where the hub reaches it (its listed host
 * and port).
 */
export function describeListenAgent(
  ack: AgentAck,
  watchers: readonly AgentWatcher[],
  where: { host: string; port: number },
): { info: AgentInfo; watchers: EdgeWatcher[]; listen: { host: string; port: number } } {
  return {
    info: {
      version: ack.version,
      ...(ack.build !== undefined && { build: ack.build }),
      hostname: where.host,
      os: ack.os,
      arch: ack.arch,
      cpus: ack.cpus,
      memoryGb: ack.memoryGb,
      uptimeSeconds: ack.uptimeSeconds,
      logLevel: ack.logLevel,
    },
    watchers: watchers.map(({ name, type, configuration }) => ({
      name,
      // As an edge agent's hello says it: absent means docker.
      ...(type !== 'docker' && { type }),
      endpoint: configuration.endpoint,
      cron: configuration.cron,
      jitterSeconds: configuration.jitter,
      watchAll: configuration.watchall,
      watchByDefault: configuration.watchbydefault,
    })),
    listen: { host: where.host, port: where.port },
  };
}
