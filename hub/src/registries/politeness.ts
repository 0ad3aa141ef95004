/** A registry's request budget: a token bucket refilled at ratePerSecond, holding at most burst. */
export interface RegistryRateLimit {
  ratePerSecond: number;
  burst: number;
}

/**
 * Default request budgets (decisions §7): public registries get a token bucket, the strictest
 * for Docker Hub and ghcr.io; private or self-hosted registries only a cap on requests in flight.
 */
const STRICT_PUBLIC = new Set(['docker.io', 'registry-1.docker.io', 'ghcr.io']);
const OTHER_PUBLIC = new Set(['lscr.io', 'quay.io', 'gcr.io', 'public.ecr.aws', 'registry.gitlab.com']);

export const PRIVATE_CONCURRENCY = 16;

export function isPublicRegistry(registry: string): boolean {
  return (
    STRICT_PUBLIC.has(registry) ||
    OTHER_PUBLIC.has(registry) ||
    registry.endsWith('.pkg.dev') ||
    registry.endsWith('.gcr.io')
  );
}

export function defaultRateLimit(registry: string): RegistryRateLimit | undefined {
  if (STRICT_PUBLIC.has(registry)) return { ratePerSecond: 2, burst: 10 };
  if (isPublicRegistry(registry)) return { ratePerSecond: 5, burst: 10 };
  return undefined;
}
