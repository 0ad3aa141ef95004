import type { RegistryPullAuth } from '../../../shared/docker/docker-host';
import { DOCKER_HUB, parseImageReference } from '../../../shared/registry/image-reference';
import type { RegistryService } from '../registries/registry-service';

/** Pull credentials come from the configured registry providers. */
export interface PullAuthDeps {
  /** Absent without registry providers: every pull is anonymous. */
  registries: { service: Pick<RegistryService, 'providerFor'> } | undefined;
}

/** What the Docker CLI sends as `serveraddress` for Docker Hub; other registries go by their host. */
const DOCKER_HUB_SERVER = 'https://index.docker.io/v1/';

/**
 * The credentials the hub holds for the target's registry (DD_REGISTRY_*), for the Engine's pull;
 * undefined means an anonymous pull. A provider that cannot produce credentials (an ECR token
 * request failing) makes the pull fail in prepare, with nothing changed.
 */
export async function pullAuthFor(deps: PullAuthDeps, reference: string): Promise<RegistryPullAuth | undefined> {
  const registries = deps.registries;
  if (!registries) return undefined;
  const { registry } = parseImageReference(reference);
  const connection = await registries.service.providerFor(registry).connection(registry);
  const credentials = connection.credentials;
  if (!credentials) return undefined;
  return {
    username: credentials.username,
    password: credentials.password,
    serverAddress: registry === DOCKER_HUB ? DOCKER_HUB_SERVER : registry,
  };
}
