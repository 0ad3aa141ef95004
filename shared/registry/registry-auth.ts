import { isLoopbackHost } from './image-reference';
import { RegistryError } from './registry-error';
import { discard, type RegistryTransport, readCapped } from './registry-transport';
import { type AuthChallenge, parseWwwAuthenticate } from './www-authenticate';

export interface BasicCredentials {
  username: string;
  password: string;
}

export interface RegistryAuthOptions {
  transport: RegistryTransport;
  /** Host (and port) of the registry API, e.g. `ghcr.io`, `127.0.0.1:5000`. */
  registryHost: string;
  credentials?: BasicCredentials | undefined;
  /** Token hosts a provider vouches for besides the registry's own domain (`auth.docker.io`). */
  trustedRealmHosts?: readonly string[];
  /** Plain-http realms are accepted for loopback and these hosts only. */
  insecure?: boolean;
  now?: () => number;
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

const DEFAULT_TOKEN_LIFETIME_S = 60;
const EXPIRY_MARGIN_MS = 5_000;
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
const TOKEN_CHARACTERS = /^[\x21-\x7e]{1,8192}$/;

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const SECOND_LEVEL_LABELS = new Set(['co', 'com', 'net', 'org', 'gov', 'ac', 'edu']);
/** Cloud domains where every customer owns a subdomain: one tenant's host vouches for no other. */
const MULTI_TENANT_SUFFIXES = ['azurecr.io', 'pkg.dev', 'amazonaws.com'];

/**
 * The registrable domain: `registry.gitlab.com` → `gitlab.com`, `r.example.co.uk` →
 * `example.co.uk`, `a.azurecr.io` → itself; undefined for IPs and single labels. An approximation
 * of the public suffix list covering the common two-level suffixes and the multi-tenant registry
 * clouds, so neither `evil.co.uk` nor `evil.azurecr.io` passes for kin of a registry's host.
 */
function registrableDomain(hostname: string): string | undefined {
  if (/^[\d.]+$/.test(hostname) || hostname.includes(':')) return undefined;
  const labels = hostname.split('.');
  if (labels.length < 2) return undefined;
  const suffix = MULTI_TENANT_SUFFIXES.find(
    (candidate) => hostname === candidate || hostname.endsWith(`.${candidate}`),
  );
  if (suffix) return labels.slice(-(suffix.split('.').length + 1)).join('.');
  const twoLevel =
    labels.length > 2 && (labels.at(-1) as string).length === 2 && SECOND_LEVEL_LABELS.has(labels.at(-2) as string);
  return labels.slice(twoLevel ? -3 : -2).join('.');
}

/**
 * Authentication against one registry: Basic, or the Bearer challenge flow (distribution token
 * spec). Tokens are cached per realm, service and scope until they expire, and once the
 * registry's challenge is known new scopes get a token without a wasted 401 first.
 */
export class RegistryAuth {
  private readonly now: () => number;
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pendingTokens = new Map<string, Promise<string>>();
  private bearer: { realm: string; service: string | undefined } | undefined;
  private basic = false;

  constructor(private readonly options: RegistryAuthOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The Authorization header to send for a scope before any challenge, if known. */
  async headerFor(scope: string): Promise<string | undefined> {
    if (this.basic && this.options.credentials) return this.basicHeader(this.options.credentials);
    if (this.bearer) return `Bearer ${await this.token(this.bearer.realm, this.bearer.service, scope)}`;
    return undefined;
  }

  /**
   * Answers a 401: returns the header to retry with, or throws. `sent` is the header that was
   * refused, so refused credentials are reported as such instead of being retried forever.
   */
  async answerChallenge(header: string | null, scope: string, sent: string | undefined): Promise<string> {
    const challenges = parseWwwAuthenticate(header);
    // A 401 whose challenge cannot be read says nothing about credentials: it is a broken answer.
    if (challenges.length === 0) {
      throw new RegistryError(
        'protocol',
        `${this.options.registryHost} answered 401 without a readable WWW-Authenticate challenge`,
      );
    }
    const bearer = challenges.find((challenge) => challenge.scheme === 'bearer');
    if (bearer) {
      if (sent?.startsWith('Bearer ')) this.forgetToken(scope);
      const realm = this.checkedRealm(bearer);
      this.bearer = { realm, service: bearer.params.service };
      const challengeScope = bearer.params.scope ?? scope;
      const token = await this.token(realm, this.bearer.service, challengeScope);
      if (sent === `Bearer ${token}`) throw this.refused('the registry refused its own token');
      return `Bearer ${token}`;
    }
    if (challenges.some((challenge) => challenge.scheme === 'basic') && this.options.credentials) {
      if (sent?.startsWith('Basic ')) throw this.refused('the registry refused the username or password');
      this.basic = true;
      return this.basicHeader(this.options.credentials);
    }
    if (this.options.credentials) throw this.refused('the registry refused the credentials');
    throw new RegistryError(
      'auth-required',
      `${this.options.registryHost} requires authentication and no credentials are configured`,
      {
        status: 401,
      },
    );
  }

  refused(why: string): RegistryError {
    return this.options.credentials
      ? new RegistryError('credentials-rejected', `${this.options.registryHost}: credentials rejected: ${why}`, {
          status: 401,
        })
      : new RegistryError(
          'auth-required',
          `${this.options.registryHost} requires authentication and no credentials are configured`,
          {
            status: 401,
          },
        );
  }

  private basicHeader(credentials: BasicCredentials): string {
    return `Basic ${toBase64(`${credentials.username}:${credentials.password}`)}`;
  }

  /** A realm elsewhere would receive our credentials: only the registry's domain or vouched hosts. */
  private checkedRealm(challenge: AuthChallenge): string {
    const raw = challenge.params.realm;
    let realm: URL;
    try {
      realm = new URL(raw ?? '');
    } catch {
      throw new RegistryError('protocol', `${this.options.registryHost}: Bearer challenge without a valid realm`);
    }
    const registryHostname = new URL(`http://${this.options.registryHost}`).hostname;
    const domain = registrableDomain(registryHostname);
    const trusted =
      realm.hostname === registryHostname ||
      (domain !== undefined && registrableDomain(realm.hostname) === domain) ||
      (this.options.trustedRealmHosts?.includes(realm.hostname) ?? false);
    if (!trusted)
      throw new RegistryError(
        'protocol',
        `${this.options.registryHost}: token realm ${realm.host} is not trusted for this registry`,
      );
    const plainAllowed = this.options.insecure === true || isLoopbackHost(realm.host);
    if (realm.protocol !== 'https:' && !(realm.protocol === 'http:' && plainAllowed)) {
      throw new RegistryError('protocol', `${this.options.registryHost}: token realm ${realm.host} is not https`);
    }
    return realm.toString();
  }

  private forgetToken(scope: string): void {
    if (this.bearer) this.tokens.delete(`${this.bearer.realm}|${this.bearer.service ?? ''}|${scope}`);
  }

  private async token(realm: string, service: string | undefined, scope: string): Promise<string> {
    const key = `${realm}|${service ?? ''}|${scope}`;
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.value;
    // Containers sharing a repository ask at once; one token request serves them all.
    let pending = this.pendingTokens.get(key);
    if (!pending) {
      pending = this.fetchToken(realm, service, scope).finally(() => this.pendingTokens.delete(key));
      this.pendingTokens.set(key, pending);
    }
    return pending;
  }

  private async fetchToken(realm: string, service: string | undefined, scope: string): Promise<string> {
    const url = new URL(realm);
    if (service) url.searchParams.set('service', service);
    if (scope) url.searchParams.set('scope', scope);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.credentials) headers.authorization = this.basicHeader(this.options.credentials);
    const response = await this.options.transport.send(url.toString(), { method: 'GET', headers });
    if (response.status === 401 || response.status === 403) {
      await discard(response);
      throw this.refused(`the token service answered ${response.status}`);
    }
    if (!response.ok) {
      await discard(response);
      throw new RegistryError('server', `${this.options.registryHost}: token service answered ${response.status}`, {
        status: response.status,
      });
    }
    const bytes = await readCapped(
      response,
      MAX_TOKEN_RESPONSE_BYTES,
      `${this.options.registryHost}: token response`,
      url.host,
    );
    let body: { token?: unknown; access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(new TextDecoder().decode(bytes));
      if (typeof body !== 'object' || body === null) throw new Error('not an object');
    } catch {
      throw new RegistryError('protocol', `${this.options.registryHost}: unreadable token response`);
    }
    const value = typeof body.token === 'string' && body.token ? body.token : body.access_token;
    // The token goes into a header: anything but visible ASCII would break it or smuggle another header.
    if (typeof value !== 'string' || !TOKEN_CHARACTERS.test(value)) {
      throw new RegistryError('protocol', `${this.options.registryHost}: token response without a usable token`);
    }
    const lifetime =
      typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_TOKEN_LIFETIME_S;
    this.tokens.set(`${realm}|${service ?? ''}|${scope}`, {
      value,
      expiresAt: this.now() + lifetime * 1000 - EXPIRY_MARGIN_MS,
    });
    return value;
  }
}
