// Moved to shared/ (edge agents read the same variables for their own hosts); re-exported for the hub.
export { DEFAULT_HOOK_TIMEOUT_S, type HookConfig, loadHookConfig } from '../../../shared/update/hook-config';
