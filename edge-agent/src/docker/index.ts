export { createDockerHost, type DockerHostOptions } from './dockerode-host';
