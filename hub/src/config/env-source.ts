// Moved to shared/ (the edge agent resolves <NAME>__FILE variables the same way); re-exported for the hub.
export * from '../../../shared/config/env-source';
