import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuayProvider } from '../../hub/src/registries/quay';
import type { RegistryProviderContext } from '../../hub/src/registries/registry-provider';
import { createRegistryClient } from '../../shared/registry/create-registry-client';
import { RegistryError } from '../../shared/registry/registry-error';
import { createConcurrencyLimiter } from '../../shared/registry/request-limiter';
import { pushImage } from '../support/registry/push-image';
import { type RegistryVariant, startRegistry, type TestRegistry } from '../support/registry/start-registry';

const ROBOT = 'acme+ci';
const ROBOT_TOKEN = 'R0B0T-T0KEN-FOR-TESTS';
const context: RegistryProviderContext = { now: Date.now, fetch: (input, init) => fetch(input, init) };

/** The quay provider's connection, as a robot account configures it, used against a real registry. */
async function clientFor(registry: TestRegistry, password: string) {
  const provider = createQuayProvider(
    {
      type: 'quay',
      name: 'ci',
      values: new Map([
        ['login', { variable: 'DD_REGISTRY_QUAY_CI_LOGIN', value: ROBOT }],
        ['token', { variable: 'DD_REGISTRY_QUAY_CI_TOKEN', value: password }],
      ]),
    },
    context,
  );
  const connection = await provider.connection('quay.io');
  return createRegistryClient({
    registry: registry.host,
    credentials: connection.credentials,
    limiter: createConcurrencyLimiter(connection.concurrency),
    timeoutMs: 5_000,
  });
}

describe.each<RegistryVariant>(['basic', 'token'])('quay robot credentials against a real %s registry', (variant) => {
  let registry: TestRegistry;
  let digest: string;
  beforeAll(async () => {
    registry = await startRegistry({ variant, users: { [ROBOT]: ROBOT_TOKEN } });
    digest = (await pushImage(registry, { repository: 'acme/app', tags: ['1.0.0', '1.1.0'] })).digest;
  });
  afterAll(() => registry?.stop());

  it('lists tags and reads the digest with the robot token', async () => {
    const client = await clientFor(registry, ROBOT_TOKEN);
    expect((await client.listTags('acme/app')).sort()).toEqual(['1.0.0', '1.1.0']);
    expect((await client.headManifest('acme/app', '1.1.0')).digest).toBe(digest);
  });

  it('reports a wrong token as rejected credentials, not as a missing image', async () => {
    const client = await clientFor(registry, 'wrong');
    const error = await client.listTags('acme/app').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).kind).toBe('credentials-rejected');
  });
});
