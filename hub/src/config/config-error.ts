// Moved to shared/ so the edge agent reports configuration errors the same way; re-exported for the hub.
export { ConfigError } from '../../../shared/config/config-error';
