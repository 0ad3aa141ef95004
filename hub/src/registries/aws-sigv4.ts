/**
 * AWS Signature Version 4 for the few AWS API calls the hub makes (ECR's GetAuthorizationToken).
 * Web Crypto only, so the same code runs on Node and on Workers, and no AWS SDK is pulled in for
 * one request.
 */

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS, instance roles) come with a session token. */
  sessionToken?: string | undefined;
}

export interface SignableRequest {
  method: string;
  url: string;
  /** Headers to send and sign (names in any case); `host` is taken from the URL. */
  headers?: Record<string, string>;
  body?: string;
}

export interface SigningScope {
  region: string;
  service: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const encoder = new TextEncoder();

/**
 * Signs a request: returns its headers (lower-cased) plus `x-amz-date`, `x-amz-security-token`
 * when there is a session token, and `authorization`. `host` is signed but not returned, since
 * fetch sets it itself (and refuses it as a header).
 */
export async function signRequest(
  request: SignableRequest,
  credentials: AwsCredentials,
  scope: SigningScope,
  now: Date,
): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const amzDate = toAmzDate(now);
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['x-amz-date'] = amzDate;
  if (credentials.sessionToken !== undefined) headers['x-amz-security-token'] = credentials.sessionToken;

  const signed: Record<string, string> = { ...headers, host: url.host };
  const names = Object.keys(signed).sort();
  const signedHeaders = names.join(';');
  const canonical = [
    request.method.toUpperCase(),
    canonicalPath(url.pathname),
    canonicalQuery(url.searchParams),
    names.map((name) => `${name}:${normalizeValue(signed[name] as string)}\n`).join(''),
    signedHeaders,
    await sha256Hex(request.body ?? ''),
  ].join('\n');
  const credentialScope = `${date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, credentialScope, await sha256Hex(canonical)].join('\n');
  const key = await signingKey(credentials.secretAccessKey, date, scope);
  const signature = toHex(await hmac(key, stringToSign));
  headers['authorization'] =
    `${ALGORITHM} Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** `2015-08-30T12:36:00.000Z` → `20150830T123600Z`. */
export function toAmzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

async function signingKey(secret: string, date: string, scope: SigningScope): Promise<ArrayBuffer> {
  let key = await hmac(encoder.encode(`AWS4${secret}`), date);
  for (const part of [scope.region, scope.service, 'aws4_request']) key = await hmac(key, part);
  return key;
}

/**
 * Every service but S3 wants the path normalised and each segment encoded once more on top of
 * the URL's own encoding (the "double encoding" of the SigV4 documentation).
 */
function canonicalPath(pathname: string): string {
  const segments: string[] = [];
  for (const segment of pathname.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailing = segments.length > 0 && pathname.endsWith('/') ? '/' : '';
  return `/${segments.map(uriEncode).join('/')}${trailing}`;
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params]
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** RFC 3986 unreserved characters stay; encodeURIComponent leaves `!'()*` alone, SigV4 does not. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

function normalizeValue(value: string): string {
  return value.trim().replace(/\s+/g, ' ');
}

async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

async function hmac(key: ArrayBuffer | Uint8Array<ArrayBuffer>, data: string): Promise<ArrayBuffer> {
  const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(data));
}

function toHex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
