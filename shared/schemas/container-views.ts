import * as v from 'valibot';

// What the container routes answer beyond the container record, for the hub's routes and the web UI's types.

const BulkUpdateResultSchema = v.object({
  containerId: v.string(),
  containerName: v.optional(v.string()),
  result: v.picklist(['accepted', 'refused']),
  operationId: v.optional(v.string()),
  status: v.number(),
  error: v.optional(v.string()),
  details: v.optional(v.record(v.string(), v.unknown())),
});

/** POST /containers/update (http-interface §4.8): each container accepted with its operation, or refused. */
export const BulkUpdateAnswerSchema = v.object({
  message: v.string(),
  batchId: v.nullable(v.string()),
  total: v.number(),
  accepted: v.number(),
  refused: v.number(),
  results: v.array(BulkUpdateResultSchema),
});
export type BulkUpdateResult = v.InferOutput<typeof BulkUpdateResultSchema>;

/** POST /containers/{id}/env/reveal: the environment with the values of sensitive keys. */
export const EnvRevealSchema = v.object({
  env: v.array(v.object({ key: v.string(), value: v.string(), sensitive: v.boolean() })),
});

/** GET /containers/{id}/stats: the last sample and the recent ones. */
export const StatsSampleSchema = v.object({
  cpuPercent: v.number(),
  memoryBytes: v.number(),
  memoryLimitBytes: v.number(),
  at: v.string(),
});
export const ContainerStatsSchema = v.object({
  containerId: v.string(),
  current: StatsSampleSchema,
  history: v.array(StatsSampleSchema),
});

/** One member of a dependency-group update, with its wave and its result. */
export const DependencyGroupMemberSchema = v.object({
  containerId: v.string(),
  containerName: v.string(),
  wave: v.number(),
  dependsOn: v.array(v.string()),
  result: v.picklist(['pending', 'queued', 'unchanged', 'refused', 'skipped']),
  operationId: v.optional(v.string()),
  status: v.optional(v.number()),
  error: v.optional(v.string()),
  details: v.optional(v.record(v.string(), v.unknown())),
});

/** One member of a container group (GET /containers/groups). */
export interface GroupMemberSummary {
  id: string;
  name: string;
  updateAvailable: boolean;
  /** Names of the containers it depends on (dd.depends_on, compose depends_on), on its host. */
  dependsOn: string[];
  /** Names of the containers that depend on it: a dependency group can be updated from it. */
  dependents: string[];
}

/** A container group: a `dd.group` label, a compose project or a Podman pod (GET /containers/groups). */
export interface ContainerGroup {
  name: string;
  /**
   * `label`: from dd.group (may span hosts); `compose`: a compose project on one host; `pod`: a
   * Podman pod on one host, updated as one unit (a dependency-group update from any member).
   */
  kind: 'label' | 'compose' | 'pod';
  /** The host of a compose project or a pod; a label group names none. */
  watcher: string | null;
  agent: string | null;
  total: number;
  updatesAvailable: number;
  containers: GroupMemberSummary[];
}
