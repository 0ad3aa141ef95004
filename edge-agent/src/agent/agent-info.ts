import os from 'node:os';
import packageJson from '../../../package.json' with { type: 'json' };
import type { AgentInfo } from '../../../shared/edge/protocol';
import type { LogLevel } from '../../../shared/schemas/log-entry';
import { readSelfContainerId } from '../docker/self-container';
import { shortText } from '../link/frame-checks';

/** The project's version as built (package.json), prerelease suffix included: the hub derives version and build from it. */
export function readAgentVersion(): string {
  // Imported, not read from disk beside this file: the production bundle (dist/agent.mjs) has it built in.
  return packageJson.version;
}

/**
 * What `hello` tells the hub about this agent (http-interface §2.3); uptime is the agent process's. The
 * container it runs in (read once: it does not change) keeps the hub from updating it.
 */
export function collectAgentInfo(version: string, logLevel: LogLevel, containerId = ownContainerId()): AgentInfo {
  return {
    version: shortText(version),
    hostname: shortText(os.hostname()),
    os: os.platform(),
    arch: os.arch(),
    cpus: os.availableParallelism(),
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    uptimeSeconds: Math.round(process.uptime()),
    logLevel,
    ...(containerId !== undefined && { containerId }),
  };
}

let ownContainer: { id: string | undefined } | undefined;
function ownContainerId(): string | undefined {
  ownContainer ??= { id: readSelfContainerId() };
  return ownContainer.id;
}
