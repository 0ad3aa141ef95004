import type { RegistryPullAuth } from './docker-host';

/**
 * A Swarm manager's Engine API, the part the hub's swarm watcher and swarm updates use
 * (hub/src/swarm/). Implemented on Node by edge-agent/src/docker/swarm-engine.ts (dockerode).
 */

/** The service's spec: the hub reads a few fields and sends the rest back as it found it. */
export interface SwarmServiceSpec {
  Name: string;
  Labels?: Record<string, string>;
  TaskTemplate: { ContainerSpec?: { Image?: string; [key: string]: unknown }; [key: string]: unknown };
  Mode?: { Replicated?: { Replicas?: number }; Global?: object; [key: string]: unknown };
  UpdateConfig?: SwarmUpdateConfig;
  RollbackConfig?: SwarmUpdateConfig;
  [key: string]: unknown;
}

/** Spec.UpdateConfig / Spec.RollbackConfig (durations in nanoseconds). */
export interface SwarmUpdateConfig {
  Parallelism?: number;
  Delay?: number;
  FailureAction?: string;
  Monitor?: number;
  MaxFailureRatio?: number;
  Order?: string;
}

/**
 * `updating`, `paused`, `completed`, `rollback_started`, `rollback_paused`, `rollback_completed`;
 * StartedAt tells one update from the one before.
 */
export interface SwarmUpdateStatus {
  State?: string;
  StartedAt?: string;
  CompletedAt?: string;
  Message?: string;
}

/** A Swarm service as the Engine API's GET /services answers it, the fields the hub reads. */
export interface SwarmService {
  ID: string;
  CreatedAt?: string;
  Version?: { Index?: number };
  Spec: SwarmServiceSpec;
  PreviousSpec?: SwarmServiceSpec;
  UpdateStatus?: SwarmUpdateStatus;
}

/** A task of a service (GET /tasks), the fields an update follows. */
export interface SwarmTask {
  ID: string;
  ServiceID?: string;
  NodeID?: string;
  DesiredState?: string;
  Spec?: { ContainerSpec?: { Image?: string } };
  Status?: { State?: string; Err?: string; Message?: string; Timestamp?: string };
}

export interface SwarmServiceUpdate {
  /** The service's Version.Index the spec was read at (the Engine refuses a stale one). */
  version: number;
  spec: SwarmServiceSpec;
  /** `previous`: the manager rolls the service back to its PreviousSpec (the spec sent is then ignored). */
  rollback?: 'previous';
  /** Registry credentials for the nodes' pulls (X-Registry-Auth). */
  auth?: RegistryPullAuth | undefined;
}

/** What the swarm watcher and swarm updates need of a manager's Engine API. */
export interface SwarmEngine {
  /** `unix:///var/run/docker.sock`, `http://manager:2375`. */
  readonly endpoint: string;
  /** GET /services; throws the Engine's error (503 "not a swarm manager" on a worker or a non-swarm engine). */
  listServices(): Promise<SwarmService[]>;
  /** GET /services/{id}; undefined when there is no such service. */
  inspectService(id: string): Promise<SwarmService | undefined>;
  /** POST /services/{id}/update?version=…[&rollback=previous]. */
  updateService(id: string, update: SwarmServiceUpdate): Promise<void>;
  /** GET /tasks?filters={"service":[id]}. */
  listTasks(serviceId: string): Promise<SwarmTask[]>;
  close(): Promise<void>;
}
