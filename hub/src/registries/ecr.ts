import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import { errorMessage } from '../../../shared/error-message';
import type { BasicCredentials } from '../../../shared/registry/registry-auth';
import { RegistryError } from '../../../shared/registry/registry-error';
import type { RegistryResponse } from '../../../shared/registry/registry-transport';
import type { ProviderVariables } from '../config/provider-variables';
import { type AwsCredentials, signRequest } from './aws-sigv4';
import { defaultRateLimit } from './politeness';
import type { ProviderConnection, RegistryProvider, RegistryProviderContext } from './registry-provider';
import { CommonRegistryOptions, commonConnection, maskSecret, parseProviderOptions } from './registry-provider';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

const OptionsSchema = {
  ...CommonRegistryOptions,
  accesskeyid: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Z0-9]{16,128}$/, 'must be an AWS access key id (AKIA…, ASIA…)')),
  ),
  secretaccesskey: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  sessiontoken: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  region: v.optional(v.pipe(v.string(), v.regex(REGION, 'must be an AWS region such as us-east-1'))),
};

/** Endpoints a test points elsewhere; by default AWS's own. */
export interface EcrEndpoints {
  /** The ECR API for GetAuthorizationToken, instead of `https://api.ecr.<region>.amazonaws.com/`. */
  apiUrl?: string;
}

export const ECR_PUBLIC_HOST = 'public.ecr.aws';
/** `<account>.dkr.ecr[-fips].<region>.amazonaws.com[.cn]`; the region is the second group. */
const PRIVATE_HOST = /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;
const TARGET = 'AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken';
const API_TIMEOUT_MS = 15_000;
/** Refresh well before AWS's expiry so a check cycle in progress never holds a dead password. */
const REFRESH_MARGIN_MS = 15 * 60_000;
/** AWS error types that mean "these credentials do not work", whatever status they come with. */
const REJECTED = new Set([
  'InvalidSignatureException',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'ExpiredTokenException',
  'IncompleteSignature',
  'MissingAuthenticationTokenException',
  'AccessDeniedException',
]);

const TokenResponseSchema = v.object({
  authorizationData: v.pipe(
    v.array(v.object({ authorizationToken: v.string(), expiresAt: v.pipe(v.number(), v.finite()) })),
    v.minLength(1),
  ),
});

interface EcrToken {
  credentials: BasicCredentials;
  /** When to ask again: AWS's expiry minus the margin (epoch ms). */
  refreshAt: number;
}

/**
 * `DD_REGISTRY_ECR_<NAME>_ACCESSKEYID`, `_SECRETACCESSKEY`, `_REGION` (+ `_SESSIONTOKEN`): private
 * ECR registries of that region, through a GetAuthorizationToken password that is renewed before
 * it expires. Without keys (the built-in instance): `public.ecr.aws`, anonymously.
 */
export function createEcrProvider(
  variables: ProviderVariables,
  context: RegistryProviderContext,
  endpoints: EcrEndpoints = {},
): RegistryProvider {
  const options = parseProviderOptions(variables, OptionsSchema);
  const aws = awsCredentials(variables, options);
  const component = `registry.ecr.${variables.name}`;
  let cached: EcrToken | undefined;
  let pending: Promise<EcrToken> | undefined;

  async function token(region: string, credentials: AwsCredentials): Promise<EcrToken> {
    if (cached && cached.refreshAt > context.now()) return cached;
    // Every repository of the region asks at once after a restart: one API call serves them all.
    pending ??= fetchEcrToken(component, context, endpoints.apiUrl ?? defaultApiUrl(region), region, credentials)
      .then((fresh) => {
        cached = fresh;
        return fresh;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  }

  return {
    type: 'ecr',
    name: variables.name,
    matches: (registry) =>
      aws ? PRIVATE_HOST.exec(registry.toLowerCase())?.[2] === aws.region : registry.toLowerCase() === ECR_PUBLIC_HOST,
    async connection(registry): Promise<ProviderConnection> {
      const base: ProviderConnection = commonConnection(options, defaultRateLimit(registry));
      if (!aws) return base;
      const current = await token(aws.region, aws.credentials);
      return { ...base, credentials: current.credentials, expiresAt: current.refreshAt };
    },
    maskedConfiguration: () => ({
      region: options.region,
      accesskeyid: maskSecret(options.accesskeyid),
      secretaccesskey: maskSecret(options.secretaccesskey),
      sessiontoken: maskSecret(options.sessiontoken),
    }),
  };
}

interface KeyOptions {
  accesskeyid: string | undefined;
  secretaccesskey: string | undefined;
  sessiontoken: string | undefined;
  region: string | undefined;
}

/** The keys come as a set: any of them configured means all three are required. */
function awsCredentials(
  variables: ProviderVariables,
  options: KeyOptions,
): { region: string; credentials: AwsCredentials } | undefined {
  const { accesskeyid, secretaccesskey, sessiontoken, region } = options;
  if (accesskeyid === undefined && secretaccesskey === undefined && sessiontoken === undefined && region === undefined)
    return undefined;
  for (const [key, value] of Object.entries({ accesskeyid, secretaccesskey, region })) {
    if (value === undefined) {
      const variable = `DD_REGISTRY_ECR_${variables.name.replace(/-/g, '_')}_${key}`.toUpperCase();
      throw new ConfigError(
        variable,
        'is required for a private ECR registry (with ACCESSKEYID, SECRETACCESSKEY and REGION)',
      );
    }
  }
  return {
    region: region as string,
    credentials: {
      accessKeyId: accesskeyid as string,
      secretAccessKey: secretaccesskey as string,
      sessionToken: sessiontoken,
    },
  };
}

function defaultApiUrl(region: string): string {
  return `https://api.ecr.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}/`;
}

/** One signed GetAuthorizationToken call; its `AWS:<password>` becomes the registry's basic credentials. */
async function fetchEcrToken(
  component: string,
  context: RegistryProviderContext,
  url: string,
  region: string,
  credentials: AwsCredentials,
): Promise<EcrToken> {
  const body = '{}';
  const request = {
    method: 'POST',
    url,
    body,
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': TARGET },
  };
  const headers = await signRequest(request, credentials, { region, service: 'ecr' }, new Date(context.now()));
  let response: RegistryResponse;
  let text: string;
  try {
    response = await context.fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    const name = (error as { name?: string }).name;
    const kind = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network';
    throw new RegistryError(kind, `${component}: GetAuthorizationToken failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (!response.ok) throw apiError(component, response, text);
  return readToken(component, text, context.now());
}

function readToken(component: string, text: string, now: number): EcrToken {
  const parsed = v.safeParse(TokenResponseSchema, safeJson(text));
  const data = parsed.success ? parsed.output.authorizationData[0] : undefined;
  const decoded = data ? decodeBase64(data.authorizationToken) : undefined;
  const colon = decoded?.indexOf(':') ?? -1;
  if (!data || decoded === undefined || colon < 1) {
    throw new RegistryError('protocol', `${component}: unreadable GetAuthorizationToken answer`);
  }
  const expiresMs = data.expiresAt * 1000;
  if (expiresMs <= now)
    throw new RegistryError('protocol', `${component}: GetAuthorizationToken returned an expired token`);
  // A short-lived token (never seen from AWS, which gives 12 h) still gets half its life.
  const refreshAt = expiresMs - Math.min(REFRESH_MARGIN_MS, (expiresMs - now) / 2);
  return { credentials: { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }, refreshAt };
}

/** AWS names the error in `__type` (sometimes namespaced `ns#Type`) and in `x-amzn-ErrorType` (`Type:uri`). */
function apiError(component: string, response: RegistryResponse, text: string): RegistryError {
  const body = safeJson(text) as { __type?: unknown; message?: unknown; Message?: unknown } | undefined;
  const rawType = typeof body?.__type === 'string' ? body.__type : (response.headers.get('x-amzn-errortype') ?? '');
  const type = (rawType.split('#').at(-1) ?? '').split(':')[0] || `HTTP ${response.status}`;
  const message = body?.message ?? body?.Message;
  const detail = `GetAuthorizationToken answered ${response.status} ${type}${typeof message === 'string' ? `: ${message.slice(0, 300)}` : ''}`;
  const status = response.status;
  if (REJECTED.has(type))
    return new RegistryError('credentials-rejected', `${component}: credentials rejected: ${detail}`, { status });
  const kind =
    type === 'ThrottlingException' || status === 429 ? 'rate-limited' : status >= 500 ? 'server' : 'protocol';
  return new RegistryError(kind, `${component}: ${detail}`, { status });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function decodeBase64(text: string): string | undefined {
  try {
    return atob(text);
  } catch {
    return undefined;
  }
}
