// Moved to shared/ (the edge agent logs through the same logger and ring); re-exported for the hub.
export * from '../../../shared/logging/logger';
