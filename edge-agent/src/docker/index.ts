export { createDockerHost, type DockerHostOptions } from './dockerode-host';
export { createEngineHost } from './engine-host';
export { createPodmanHost } from './podman-host';
export { createSwarmEngine } from './swarm-engine';
