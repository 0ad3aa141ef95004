// Moved to shared/ (the edge agent reads its variables with the same readers); re-exported for the hub.
export * from '../../../shared/config/env-readers';
