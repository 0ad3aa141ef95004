import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRegistryClient } from '../../../shared/registry/create-registry-client';
import { RegistryError } from '../../../shared/registry/registry-error';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import { type EcrApi, startEcrApi } from '../../../test/support/fixtures/ecr-api';
import { pushImage } from '../../../test/support/registry/push-image';
import { startRegistry } from '../../../test/support/registry/start-registry';
import { configErrorOf, variablesOf } from '../../../test/support/registry-variables';
import { createEcrProvider } from './ecr';
import { createGenericProvider } from './generic';
import type { RegistryProviderContext } from './registry-provider';
import { RegistryService } from './registry-service';

// AWS's documented example key pair: not a real account.
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const TEMP_KEY_ID = 'ASIAIOSFODNN7EXAMPLE';
const TEMP_SECRET = 'temporary/secret/EXAMPLEKEY';
const SESSION_TOKEN = 'FwoGZXIvYXdzEXAMPLE/session+token==';
const HOST = '123456789012.dkr.ecr.us-east-1.amazonaws.com';
const MARGIN_MS = 15 * 60_000;

async function registryError(promise: Promise<unknown>): Promise<RegistryError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof RegistryError) return error;
  throw new Error(`expected a RegistryError, got ${String(error)}`);
}

let clock = Date.parse('2025-06-01T10:00:00Z');
let api: EcrApi;
const context: RegistryProviderContext = { now: () => clock, fetch: (input, init) => fetch(input, init) };
const keys = { accesskeyid: KEY_ID, secretaccesskey: SECRET, region: 'us-east-1' };

beforeAll(async () => {
  api = await startEcrApi({
    keys: {
      [KEY_ID]: { secretAccessKey: SECRET },
      [TEMP_KEY_ID]: { secretAccessKey: TEMP_SECRET, sessionToken: SESSION_TOKEN },
    },
    now: () => clock,
  });
});
afterAll(() => api?.close());
beforeEach(() => {
  clock = Date.parse('2025-06-01T10:00:00Z');
});

const variables = (name: string, values: Record<string, string>) => variablesOf('ecr', name, values);

describe('ecr options', () => {
  it('refuses an unknown key, naming the variable and the known ones', () => {
    const error = configErrorOf(() => createEcrProvider(variables('prod', { ...keys, password: 'x' }), context));
    expect(error.variable).toBe('DD_REGISTRY_ECR_PROD_PASSWORD');
    expect(error.message).toContain('accesskeyid, secretaccesskey, sessiontoken, region');
  });

  it.each([
    ['region', 'DD_REGISTRY_ECR_PROD_REGION'],
    ['secretaccesskey', 'DD_REGISTRY_ECR_PROD_SECRETACCESSKEY'],
    ['accesskeyid', 'DD_REGISTRY_ECR_PROD_ACCESSKEYID'],
  ])('requires %s once any key is set', (missing, variable) => {
    const { [missing as keyof typeof keys]: _dropped, ...rest } = keys;
    const error = configErrorOf(() => createEcrProvider(variables('prod', rest), context));
    expect(error.variable).toBe(variable);
    expect(error.message).not.toContain(SECRET);
  });

  it('requires the keys with a session token, and names a multi-word provider name with underscores', () => {
    expect(
      configErrorOf(() => createEcrProvider(variables('my-team', { sessiontoken: SESSION_TOKEN }), context)).variable,
    ).toBe('DD_REGISTRY_ECR_MY_TEAM_ACCESSKEYID');
  });

  it('refuses a malformed region or access key id', () => {
    expect(
      configErrorOf(() => createEcrProvider(variables('prod', { ...keys, region: 'US East' }), context)).variable,
    ).toBe('DD_REGISTRY_ECR_PROD_REGION');
    expect(
      configErrorOf(() => createEcrProvider(variables('prod', { ...keys, accesskeyid: 'not a key' }), context))
        .variable,
    ).toBe('DD_REGISTRY_ECR_PROD_ACCESSKEYID');
  });

  it('masks every credential', () => {
    const provider = createEcrProvider(
      variables('prod', { ...keys, accesskeyid: TEMP_KEY_ID, sessiontoken: SESSION_TOKEN }),
      context,
    );
    const masked = provider.maskedConfiguration();
    expect(masked).toEqual({ region: 'us-east-1', accesskeyid: '***', secretaccesskey: '***', sessiontoken: '***' });
    for (const secret of [SECRET, TEMP_KEY_ID, SESSION_TOKEN]) expect(JSON.stringify(masked)).not.toContain(secret);
  });
});

describe('ecr host matching', () => {
  it('serves the private registries of its own region only', () => {
    const provider = createEcrProvider(variables('prod', keys), context);
    expect(provider.matches(HOST)).toBe(true);
    expect(provider.matches('210987654321.dkr.ecr.us-east-1.amazonaws.com')).toBe(true);
    expect(provider.matches('123456789012.dkr.ecr-fips.us-east-1.amazonaws.com')).toBe(true);
    expect(provider.matches('123456789012.dkr.ecr.eu-west-1.amazonaws.com')).toBe(false);
    expect(provider.matches('public.ecr.aws')).toBe(false);
    expect(provider.matches(`${HOST}.attacker.example`)).toBe(false);
    expect(provider.matches('evil.com/123456789012.dkr.ecr.us-east-1.amazonaws.com')).toBe(false);
    expect(provider.matches('12345.dkr.ecr.us-east-1.amazonaws.com')).toBe(false);
  });

  it('knows the China partition', () => {
    const provider = createEcrProvider(variables('cn', { ...keys, region: 'cn-north-1' }), context);
    expect(provider.matches('123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn')).toBe(true);
  });
});

describe('the built-in ecr instance', () => {
  it('serves public.ecr.aws anonymously with the public-registry budget, without calling AWS', async () => {
    const before = api.requests;
    const provider = createEcrProvider({ type: 'ecr', name: 'public', values: new Map() }, context, {
      apiUrl: api.url,
    });
    expect(provider.matches('public.ecr.aws')).toBe(true);
    expect(provider.matches(HOST)).toBe(false);
    const connection = await provider.connection('public.ecr.aws');
    expect(connection.credentials).toBeUndefined();
    expect(connection.expiresAt).toBeUndefined();
    expect(connection.rateLimit).toEqual({ ratePerSecond: 5, burst: 10 });
    expect(api.requests).toBe(before);
  });
});

describe('ecr authorization tokens', () => {
  it('turns GetAuthorizationToken into basic credentials that expire before AWS says', async () => {
    const provider = createEcrProvider(variables('prod', keys), context, { apiUrl: api.url });
    const connection = await provider.connection(HOST);
    const issued = api.issued.at(-1);
    expect(issued?.accessKeyId).toBe(KEY_ID);
    expect(connection.credentials).toEqual({ username: 'AWS', password: issued?.password });
    expect(connection.expiresAt).toBe((issued?.expiresAt ?? 0) * 1000 - MARGIN_MS);
    expect(connection.rateLimit).toBeUndefined();
    expect(connection.concurrency).toBe(16);
  });

  it('reuses the token until the margin before expiry, then asks again', async () => {
    const provider = createEcrProvider(variables('prod', keys), context, { apiUrl: api.url });
    const first = await provider.connection(HOST);
    const requests = api.requests;
    clock = (first.expiresAt ?? 0) - 1;
    expect((await provider.connection('210987654321.dkr.ecr.us-east-1.amazonaws.com')).credentials).toEqual(
      first.credentials,
    );
    expect(api.requests).toBe(requests);
    clock = first.expiresAt ?? 0;
    const second = await provider.connection(HOST);
    expect(api.requests).toBe(requests + 1);
    expect(second.credentials?.password).not.toBe(first.credentials?.password);
    expect(second.expiresAt).toBeGreaterThan(first.expiresAt ?? 0);
  });

  it('shares one request between concurrent callers', async () => {
    const provider = createEcrProvider(variables('prod', keys), context, { apiUrl: api.url });
    const requests = api.requests;
    const connections = await Promise.all(Array.from({ length: 8 }, () => provider.connection(HOST)));
    expect(api.requests).toBe(requests + 1);
    for (const connection of connections) expect(connection.credentials).toEqual(connections[0]?.credentials);
  });

  it('signs temporary credentials with their session token', async () => {
    const temporary = {
      accesskeyid: TEMP_KEY_ID,
      secretaccesskey: TEMP_SECRET,
      sessiontoken: SESSION_TOKEN,
      region: 'us-east-1',
    };
    const provider = createEcrProvider(variables('sts', temporary), context, { apiUrl: api.url });
    expect((await provider.connection(HOST)).credentials?.username).toBe('AWS');
    const { sessiontoken: _dropped, ...withoutToken } = temporary;
    const forgetful = createEcrProvider(variables('sts', withoutToken), context, { apiUrl: api.url });
    expect((await registryError(forgetful.connection(HOST))).kind).toBe('credentials-rejected');
  });

  it('reports a wrong secret as credentials-rejected, without the secret, and asks again next time', async () => {
    const provider = createEcrProvider(variables('prod', { ...keys, secretaccesskey: 'wrong/secret' }), context, {
      apiUrl: api.url,
    });
    const error = await registryError(provider.connection(HOST));
    expect(error.kind).toBe('credentials-rejected');
    expect(error.message).toMatch(/^registry\.ecr\.prod: credentials rejected: .*InvalidSignatureException/);
    expect(error.message).not.toContain('wrong/secret');
    const requests = api.requests;
    await registryError(provider.connection(HOST));
    expect(api.requests).toBe(requests + 1);
  });

  it('reports an unknown access key as credentials-rejected', async () => {
    const provider = createEcrProvider(variables('prod', { ...keys, accesskeyid: 'AKIAUNKNOWNEXAMPLE00' }), context, {
      apiUrl: api.url,
    });
    const error = await registryError(provider.connection(HOST));
    expect(error.kind).toBe('credentials-rejected');
    expect(error.message).toContain('UnrecognizedClientException');
  });

  it('signs with the injected clock: a clock 10 minutes off is refused as AWS does', async () => {
    const skewed = { ...context, now: () => clock + 10 * 60_000 };
    const error = await registryError(
      createEcrProvider(variables('prod', keys), skewed, { apiUrl: api.url }).connection(HOST),
    );
    expect(error.kind).toBe('credentials-rejected');
    expect(error.message).toContain('Signature expired');
  });

  it('reports an unreachable API as a network error', async () => {
    const provider = createEcrProvider(variables('prod', keys), context, { apiUrl: 'http://127.0.0.1:1/' });
    expect((await registryError(provider.connection(HOST))).kind).toBe('network');
  });
});

describe('ecr in the registry service', () => {
  it('rebuilds the registry client when the token is about to expire', async () => {
    const provider = createEcrProvider(variables('prod', keys), context, { apiUrl: api.url });
    const service = new RegistryService({
      providers: [provider],
      builtIn: [],
      fallback: createGenericProvider(new Set()),
      now: () => clock,
    });
    const requests = api.requests;
    const first = await service.clientFor(HOST);
    expect((await service.clientFor(HOST)).client).toBe(first.client);
    expect(api.requests).toBe(requests + 1);
    clock = api.issued.at(-1)!.expiresAt * 1000 - MARGIN_MS;
    const second = await service.clientFor(HOST);
    expect(second.client).not.toBe(first.client);
    expect(api.requests).toBe(requests + 2);
  });

  it('gives credentials a real registry accepts as basic auth', async () => {
    const password = 'ecr-registry-password-EXAMPLE';
    const registry = await startRegistry({ variant: 'basic', users: { AWS: password } });
    const ecr = await startEcrApi({ keys: { [KEY_ID]: { secretAccessKey: SECRET } }, issuePassword: () => password });
    try {
      const pushed = await pushImage(registry, { repository: 'team/app', tags: ['1.0'] });
      const provider = createEcrProvider(variables('prod', keys), { ...context, now: Date.now }, { apiUrl: ecr.url });
      const { credentials } = await provider.connection(HOST);
      const client = createRegistryClient({
        registry: registry.host,
        credentials,
        limiter: createConcurrencyLimiter(4),
      });
      expect((await client.headManifest('team/app', '1.0')).digest).toBe(pushed.digest);
    } finally {
      await ecr.close();
      await registry.stop();
    }
  });
});
