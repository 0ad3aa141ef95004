/** What tests, the load generator and embedders drive the agent through. */

export { agentNameFromHostname, isValidAgentName } from './agent/agent-name';
export { createEdgeAgent, type EdgeAgent, type EdgeAgentEvent, type EdgeAgentOptions } from './agent/edge-agent';
export { type AgentEnvironment, loadAgentEnvironment } from './cli/agent-environment';
export { registrationOf, runKeygen } from './cli/keygen';
export { type AgentCommand, parseArguments, resolveAgentName, USAGE } from './cli/parse-args';
export { type StartOptions, startAgent } from './cli/run-agent';
export { type StartListenOptions, startListenAgent } from './cli/run-listen';
export { observeWatcher, type WatcherObservation } from './feed/observe-watcher';
export { DEFAULT_PART_LIMITS, partitionSnapshot, type SnapshotPart } from './feed/snapshot-parts';
export type { EdgeKey } from './keys/edge-key';
export { KeyFileError, readKeyFile, writeNewKeyFile } from './keys/key-file';
export { type Backoff, type BackoffOptions, createBackoff, DEFAULT_BACKOFF } from './link/backoff';
export { closeMeaning } from './link/close-codes';
export { HubLinkSession } from './link/edge-session';
export { EDGE_PATH, edgeSocketUrl } from './link/hub-url';
export {
  DEFAULT_SESSION_TUNING,
  type HubLinkSessionOptions,
  type SessionEnd,
  type SessionTuning,
} from './link/session-options';
export { realTimers, type Timers } from './link/timers';
export { createListenAgent, type ListenAgent, type ListenAgentOptions } from './listen/listen-agent';
export { createAgentLogging, createPinoJsonSink } from './logging/agent-logging';
