import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const OPENSSL = '/usr/bin/openssl';

/** A throwaway CA and a server certificate for 127.0.0.1 signed by it, in a temp directory. */
export interface TestCertificates {
  dir: string;
  caFile: string;
  ca: string;
  key: string;
  cert: string;
}

export async function createTestCertificates(): Promise<TestCertificates> {
  if (!existsSync(OPENSSL))
    throw new Error(`${OPENSSL} not found; run \`node scripts/ensure-testbed.mjs\` to install it`);
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-oidc-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync(OPENSSL, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...ecKey,
    '-days',
    '1',
    '-subj',
    '/CN=dockwatch test CA',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
  ]);
  openssl(['req', ...ecKey, '-subj', '/CN=127.0.0.1', '-keyout', at('server.key'), '-out', at('server.csr')]);
  await writeFile(
    at('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl([
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-set_serial',
    '2',
    '-days',
    '1',
    '-extfile',
    at('server.ext'),
    '-out',
    at('server.pem'),
  ]);
  return {
    dir,
    caFile: at('ca.pem'),
    ca: await readFile(at('ca.pem'), 'utf8'),
    key: await readFile(at('server.key'), 'utf8'),
    cert: await readFile(at('server.pem'), 'utf8'),
  };
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** The one account the provider knows; the development login form signs it in when its `sub` is typed as the login. */
export interface TestAccount {
  sub: string;
  preferredUsername: string;
  email: string;
}

/** What the provider handed out, so a test can check none of it reaches the hub's logs. */
export interface IssuedSecrets {
  codes: string[];
  codeVerifiers: string[];
  accessTokens: string[];
  idTokens: string[];
}

export interface TestOidcProvider {
  issuer: string;
  discoveryUrl: string;
  issued: IssuedSecrets;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (the `oidc-provider` package) over HTTPS on 127.0.0.1, with one
 * confidential client that must use PKCE, its own signing key, and the development interactions
 * (a login form and a consent form) standing in for a person.
 */
export async function startOidcProvider(options: {
  tls: TestCertificates;
  client: TestClient;
  account: TestAccount;
}): Promise<TestOidcProvider> {
  let handler: RequestListener | undefined;
  // Listening first: the issuer URL, which the provider needs, carries the ephemeral port.
  const server: Server = createServer({ key: options.tls.key, cert: options.tls.cert }, (req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const { account, client } = options;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: client.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['dockwatch-test-cookie-key'] },
    // Explicit lifetimes (seconds), so the provider does not warn about its defaults on every sign-in.
    ttl: { Interaction: 600, Session: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email', 'email_verified'] },
    // The development login form accepts any login and password; only this account's login finds anyone.
    findAccount: (_ctx, id) =>
      id === account.sub
        ? {
            accountId: id,
            claims: () => ({
              sub: id,
              preferred_username: account.preferredUsername,
              email: account.email,
              email_verified: true,
            }),
          }
        : undefined,
  });
  const issued: IssuedSecrets = { codes: [], codeVerifiers: [], accessTokens: [], idTokens: [] };
  provider.on('grant.success', (ctx) => {
    const params = ctx.oidc.params ?? {};
    const body = ctx.body as Record<string, unknown>;
    for (const [list, value] of [
      [issued.codes, params.code],
      [issued.codeVerifiers, params.code_verifier],
      [issued.accessTokens, body.access_token],
      [issued.idTokens, body.id_token],
    ] as const) {
      if (typeof value === 'string') list.push(value);
    }
  });
  handler = provider.callback();

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    issued,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

export async function removeTestCertificates(tls: TestCertificates): Promise<void> {
  await rm(tls.dir, { recursive: true, force: true });
}
