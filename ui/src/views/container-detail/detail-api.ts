// The routes of one container's detail page (http-interface §4.8, §4.14), typed from the schemas that
// validate them: `import type` only, so nothing of valibot or the hub is bundled.
import type * as v from 'valibot';
import type { ContainerScan as ScanRecord } from '../../../../shared/schemas/container-scan';
import type {
  ContainerGroup,
  ContainerStatsSchema,
  DependencyGroupMemberSchema,
  EnvRevealSchema,
} from '../../../../shared/schemas/container-views';
import type { UpdatePolicyAction } from '../../../../shared/schemas/update-policy';
import type { BackupViewSchema, OperationViewSchema } from '../../../../shared/schemas/update-views';
import { type Container, call } from '../../api';

export type { ContainerGroup, UpdatePolicyAction };
/** The running image's own findings, beside a scan of the update candidate (docs/security-scanning.md). */
export type RunningFindings = Pick<ScanRecord, 'image' | 'scannedAt' | 'summary' | 'vulnerabilities'>;
/** GET …/vulnerabilities: the latest scan, with `running` when it read the update's image. */
export type ContainerScan = ScanRecord & { running?: RunningFindings };
/** GET …/release-notes (docs/release-notes.md): why there are none is in `status` and `message`. */
export interface ReleaseNotes {
  status: string;
  message: string;
  target: string | null;
  release: { tag: string; title: string; date: string | null; body: string; url: string | null } | null;
}
/** GET …/vulnerabilities before any scan. */
export interface NotScanned {
  containerId: string;
  status: 'not-scanned';
}
export type EnvEntry = v.InferOutput<typeof EnvRevealSchema>['env'][number];
export type Backup = v.InferOutput<typeof BackupViewSchema>;
export type OperationView = v.InferOutput<typeof OperationViewSchema>;
export type StatsSample = v.InferOutput<typeof ContainerStatsSchema>['current'];
export type GroupMember = v.InferOutput<typeof DependencyGroupMemberSchema>;
/** GET /containers/{id}/triggers: Docker action triggers first, then notification triggers (configuration masked). */
export interface ContainerTrigger {
  id: string;
  type: string;
  name: string;
}

/** The confirmation tokens of http-interface §4.1 this page sends. */
const CONFIRM = {
  rollback: { 'x-dd-confirm-action': 'container-rollback' },
  groupUpdate: { 'x-dd-confirm-action': 'dependency-group-update' },
  remove: { 'x-dd-confirm-action': 'container-delete' },
} as const;

const at = (id: string) => `/containers/${encodeURIComponent(id)}`;
const segment = encodeURIComponent;

export interface LabelOverrides {
  containerId: string;
  identity: string;
  labels: Record<string, string>;
  globalOverrides: string[];
}

/**
 * The reads take the signal of the section that asked (useSectionRead): a section that goes away
 * (its container removed or re-created under a new id, as a rollback does) cancels what it still
 * waits for, so no answer about a container that is gone comes back as a 404.
 */
export const detailApi = {
  releaseNotes: (id: string, signal?: AbortSignal) => call<ReleaseNotes>(`${at(id)}/release-notes`, { signal }),
  vulnerabilities: (id: string, signal?: AbortSignal) =>
    call<ContainerScan | NotScanned>(`${at(id)}/vulnerabilities`, { signal }),
  scan: (id: string) => call<Container>(`${at(id)}/scan`, { method: 'POST' }),
  labelOverrides: (id: string) => call<LabelOverrides>(`${at(id)}/label-overrides`),
  patchLabelOverrides: (id: string, body: { set?: Record<string, string>; unset?: string[] }) =>
    call<Container>(`${at(id)}/label-overrides`, { method: 'PATCH', body }),
  control: (id: string, action: 'start' | 'stop' | 'restart') =>
    call<Container>(`${at(id)}/${action}`, { method: 'POST' }),
  remove: (id: string) => call<unknown>(at(id), { method: 'DELETE', headers: CONFIRM.remove }),
  revealEnv: (id: string) => call<{ env: EnvEntry[] }>(`${at(id)}/env/reveal`, { method: 'POST' }),
  setPolicy: (id: string, body: UpdatePolicyAction) =>
    call<Container>(`${at(id)}/update-policy`, { method: 'PATCH', body }),
  triggers: (id: string, signal?: AbortSignal) =>
    call<{ data: ContainerTrigger[]; total: number }>(`${at(id)}/triggers`, { signal }),
  runTrigger: (id: string, trigger: ContainerTrigger) =>
    call<unknown>(`${at(id)}/triggers/${segment(trigger.type)}/${segment(trigger.name)}`, { method: 'POST' }),
  backups: (id: string, signal?: AbortSignal) =>
    call<{ data: Backup[]; total: number }>(`${at(id)}/backups`, { signal }),
  rollback: (id: string, backupId: string) =>
    call<{ message: string; operationId: string }>(`${at(id)}/rollback`, {
      method: 'POST',
      body: { backupId },
      headers: CONFIRM.rollback,
    }),
  operations: (id: string, signal?: AbortSignal) =>
    call<{ data: OperationView[]; total: number; hasMore: boolean }>(`${at(id)}/update-operations?limit=20`, {
      signal,
    }),
  operation: (operationId: string) => call<OperationView>(`/update-operations/${segment(operationId)}`),
  cancel: (operationId: string) =>
    call<{ message: string }>(`/operations/${segment(operationId)}/cancel`, { method: 'POST' }),
  groups: (signal?: AbortSignal) => call<{ data: ContainerGroup[]; total: number }>('/containers/groups', { signal }),
  updateGroup: (rootId: string) =>
    call<{ message: string; waves: number; members: GroupMember[] }>(`/dependency-groups/${segment(rootId)}/update`, {
      method: 'POST',
      headers: CONFIRM.groupUpdate,
    }),
};

/** Where the log download, the log stream and the stats stream are (the browser opens them itself). */
export const detailUrls = {
  logDownload: (id: string) => `/api/v1${at(id)}/logs?tail=1000`,
  logStream: (id: string) =>
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1${at(id)}/logs/stream?tail=100`,
  statsStream: (id: string) => `/api/v1${at(id)}/stats/stream?interval=2`,
};
