// The runner's contract moved to shared/update/hooks.ts (edge agents run hooks too); re-exported for the hub.
export type { HookResult, HookRunner, HookRunOptions } from '../../../shared/update/hooks';
