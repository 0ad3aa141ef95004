import { randomUUID, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the token server answers, so client tests can meet the variations seen in the wild:
 * - `normal`: `{token, access_token, expires_in, issued_at}` like Docker Hub.
 * - `no-expires-in`: no `expires_in`, which the token spec says means 60 seconds.
 * - `access-token-only`: only the OAuth2 field `access_token`, as some registries answer.
 * - `fail-500`: the auth service is down.
 */
export type TokenServerMode = 'normal' | 'no-expires-in' | 'access-token-only' | 'fail-500';

export interface TokenServerOptions {
  /** Must equal the registry's `auth.token.issuer`. */
  issuer: string;
  /** Must equal the registry's `auth.token.service`; it becomes the token's `aud`. */
  service: string;
  /** PKCS#8 PEM of the P-256 key that signs the tokens. */
  keyPem: string;
  /** PEM of the self-signed certificate the registry trusts as `rootcertbundle`. */
  certPem: string;
  users: Record<string, string>;
  expiresInSeconds?: number;
}

export interface TokenRequestRecord {
  /** `undefined` for an anonymous request. */
  user: string | undefined;
  scopes: string[];
  status: number;
}

export interface TokenServer {
  url: string;
  /** Every `GET /token`, failed ones included; tests reset it to 0 to measure a phase. */
  requests: number;
  log: TokenRequestRecord[];
  mode: TokenServerMode;
  close(): Promise<void>;
}

interface AccessEntry {
  type: string;
  name: string;
  actions: string[];
}

const DEFAULT_EXPIRES_IN_SECONDS = 300;

/** Starts a Docker-Hub-style token endpoint on 127.0.0.1 and an ephemeral port. */
export async function startTokenServer(options: TokenServerOptions): Promise<TokenServer> {
  // The registry checks the x5c chain against its root bundle, so the header carries the same certificate.
  const x5c = pemToDerBase64(options.certPem);
  const state = { requests: 0, log: [] as TokenRequestRecord[], mode: 'normal' as TokenServerMode };

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      reply(res, 500, { errors: [{ code: 'UNKNOWN', message: String(error) }] });
    }
  });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/token') {
      reply(res, 404, { errors: [{ code: 'NOT_FOUND', message: `${req.method} ${url.pathname}` }] });
      return;
    }
    state.requests += 1;
    const scopes = url.searchParams.getAll('scope').flatMap((scope) => scope.split(' ').filter(Boolean));
    const record: TokenRequestRecord = { user: undefined, scopes, status: 200 };
    state.log.push(record);

    const credentials = parseBasic(req.headers.authorization);
    if (credentials) record.user = credentials.user;
    if (state.mode === 'fail-500') {
      record.status = 500;
      reply(res, 500, { errors: [{ code: 'UNKNOWN', message: 'token server told to fail' }] });
      return;
    }
    if (credentials && options.users[credentials.user] !== credentials.password) {
      record.status = 401;
      res.setHeader('WWW-Authenticate', 'Basic realm="test-token-server"');
      reply(res, 401, { errors: [{ code: 'UNAUTHORIZED', message: 'invalid username or password' }] });
      return;
    }
    const service = url.searchParams.get('service');
    if (service !== null && service !== options.service) {
      record.status = 400;
      reply(res, 400, { errors: [{ code: 'INVALID_SERVICE', message: `unknown service ${service}` }] });
      return;
    }
    // Anonymous callers are held to pull, like public repositories on Docker Hub.
    const access = scopes
      .map(parseScope)
      .map((entry) => (credentials ? entry : { ...entry, actions: entry.actions.filter((a) => a === 'pull') }));
    const token = signToken(options, x5c, credentials?.user ?? '', access);
    reply(res, 200, tokenBody(state.mode, token, options.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/token`,
    get requests() {
      return state.requests;
    },
    set requests(value: number) {
      state.requests = value;
    },
    get log() {
      return state.log;
    },
    get mode() {
      return state.mode;
    },
    set mode(value: TokenServerMode) {
      state.mode = value;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function tokenBody(mode: TokenServerMode, token: string, expiresIn: number): Record<string, unknown> {
  const issuedAt = new Date().toISOString();
  if (mode === 'no-expires-in') return { token, access_token: token, issued_at: issuedAt };
  if (mode === 'access-token-only') return { access_token: token, expires_in: expiresIn, issued_at: issuedAt };
  return { token, access_token: token, expires_in: expiresIn, issued_at: issuedAt };
}

function signToken(options: TokenServerOptions, x5c: string, subject: string, access: AccessEntry[]): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'ES256', typ: 'JWT', x5c: [x5c] };
  const claims = {
    iss: options.issuer,
    sub: subject,
    aud: options.service,
    exp: now + (options.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS),
    // A little slack so a token is never "not yet valid" for a registry whose clock reads a second behind.
    nbf: now - 10,
    iat: now,
    jti: randomUUID(),
    access,
  };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  // JWS wants the raw r||s signature, not the DER encoding Node produces by default.
  const signature = sign('sha256', Buffer.from(input), { key: options.keyPem, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** `repository:team/app:pull,push` → name may itself hold colons only in the middle part. */
function parseScope(scope: string): AccessEntry {
  const first = scope.indexOf(':');
  const last = scope.lastIndexOf(':');
  if (first < 0 || last === first) return { type: scope, name: '', actions: [] };
  const actions = scope
    .slice(last + 1)
    .split(',')
    .filter(Boolean);
  return { type: scope.slice(0, first), name: scope.slice(first + 1, last), actions };
}

function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  if (!header?.toLowerCase().startsWith('basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { user: decoded, password: '' };
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function pemToDerBase64(pem: string): string {
  const body = pem.match(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/)?.[1];
  if (!body) throw new Error('token-server: certPem holds no certificate');
  return body.replace(/\s+/g, '');
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
