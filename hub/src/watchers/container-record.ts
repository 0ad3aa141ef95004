// Moved to shared/ (the listen-mode agent builds the same records); re-exported for the hub.
export * from '../../../shared/containers/container-record';
