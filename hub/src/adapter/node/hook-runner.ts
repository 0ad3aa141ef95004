// Moved to edge-agent/src/hooks/ (an agent runs the hooks of its own host's containers with it); the hub's Node entry injects it from here.
export { createNodeHookRunner } from '../../../../edge-agent/src/hooks/hook-runner';
