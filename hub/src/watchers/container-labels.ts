// Moved to shared/ (the listen-mode agent reads the same labels); re-exported for the hub.
export * from '../../../shared/containers/container-labels';
