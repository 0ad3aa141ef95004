// Moved to shared/ (the edge agent keeps the same ring for its log.entries); re-exported for the hub.
export * from '../../../shared/logging/log-ring';
