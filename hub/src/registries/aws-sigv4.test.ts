import { describe, expect, it } from 'vitest';
import { sigV4Signature } from '../../../test/support/fixtures/ecr-api';
import { type AwsCredentials, type SignableRequest, type SigningScope, signRequest, toAmzDate } from './aws-sigv4';

// The credentials of the AWS SigV4 test suite (public example values, not a real account).
const SUITE_CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SUITE_DATE = new Date('2015-08-30T12:36:00Z');
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=[^,]+, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** Signs with the hub's Web Crypto signer, then recomputes with the fixture's node:crypto verifier. */
async function signAndVerify(request: SignableRequest, credentials: AwsCredentials, scope: SigningScope, now: Date) {
  const headers = await signRequest(request, credentials, scope, now);
  const [, signedHeaders = '', signature] = AUTHORIZATION.exec(headers['authorization'] ?? '') ?? [];
  const url = new URL(request.url);
  const sent: Record<string, string> = { ...headers, host: url.host };
  const signed = Object.fromEntries(signedHeaders.split(';').map((name) => [name, sent[name] ?? '']));
  const expected = sigV4Signature(
    { method: request.method, path: `${url.pathname}${url.search}`, headers: signed, body: request.body ?? '' },
    credentials.secretAccessKey,
    { date: toAmzDate(now), ...scope },
  );
  return { headers, signedHeaders, signature, expected };
}

describe('signRequest', () => {
  it('reproduces get-vanilla from the AWS SigV4 test suite', async () => {
    const headers = await signRequest(
      { method: 'GET', url: 'https://example.amazonaws.com/' },
      SUITE_CREDENTIALS,
      { region: 'us-east-1', service: 'service' },
      SUITE_DATE,
    );
    expect(headers).toEqual({
      'x-amz-date': '20150830T123600Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, ' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    });
  });

  it('agrees with the node:crypto verifier on get-vanilla, so the verifier itself is checked against AWS', async () => {
    const result = await signAndVerify(
      { method: 'GET', url: 'https://example.amazonaws.com/' },
      SUITE_CREDENTIALS,
      { region: 'us-east-1', service: 'service' },
      SUITE_DATE,
    );
    expect(result.expected).toBe('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    expect(result.signature).toBe(result.expected);
  });

  it('signs an ECR GetAuthorizationToken call as the independent verifier does', async () => {
    const result = await signAndVerify(
      {
        method: 'POST',
        url: 'https://api.ecr.eu-west-1.amazonaws.com/',
        headers: {
          'Content-Type': 'application/x-amz-json-1.1',
          'X-Amz-Target': 'AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken',
        },
        body: '{}',
      },
      { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      { region: 'eu-west-1', service: 'ecr' },
      new Date('2025-03-04T05:06:07.890Z'),
    );
    expect(result.signedHeaders).toBe('content-type;host;x-amz-date;x-amz-target');
    expect(result.headers['x-amz-date']).toBe('20250304T050607Z');
    expect(result.signature).toBe(result.expected);
  });

  it('signs the session token of temporary credentials', async () => {
    const result = await signAndVerify(
      {
        method: 'POST',
        url: 'http://127.0.0.1:8443/',
        headers: { 'content-type': 'application/x-amz-json-1.1' },
        body: '{}',
      },
      {
        accessKeyId: 'ASIAIOSFODNN7EXAMPLE',
        secretAccessKey: 'temporary/secret',
        sessionToken: 'FwoGZXIvYXdzEBYaD+example/token==',
      },
      { region: 'us-west-2', service: 'ecr' },
      new Date('2025-03-04T05:06:07Z'),
    );
    expect(result.headers['x-amz-security-token']).toBe('FwoGZXIvYXdzEBYaD+example/token==');
    expect(result.signedHeaders).toBe('content-type;host;x-amz-date;x-amz-security-token');
    expect(result.signature).toBe(result.expected);
  });

  it('canonicalises query order, reserved characters, paths and header whitespace like the verifier', async () => {
    const result = await signAndVerify(
      {
        method: 'GET',
        url: "https://example.amazonaws.com/a b/./c/../d%2Fe/ü/?Param2=value2&Param1=b&Param1=a&star=*'!()&empty=",
        headers: { 'X-Custom': '  spaced    out  value ' },
      },
      SUITE_CREDENTIALS,
      { region: 'us-east-1', service: 'service' },
      SUITE_DATE,
    );
    expect(result.signature).toBe(result.expected);
  });

  it('gives another signature for another secret, date or body', async () => {
    const request = { method: 'POST', url: 'https://api.ecr.us-east-1.amazonaws.com/', body: '{}' };
    const scope = { region: 'us-east-1', service: 'ecr' };
    const base = await signRequest(request, SUITE_CREDENTIALS, scope, SUITE_DATE);
    const variants = await Promise.all([
      signRequest(request, { ...SUITE_CREDENTIALS, secretAccessKey: 'other' }, scope, SUITE_DATE),
      signRequest(request, SUITE_CREDENTIALS, scope, new Date(SUITE_DATE.getTime() + 1000)),
      signRequest({ ...request, body: '{ }' }, SUITE_CREDENTIALS, scope, SUITE_DATE),
    ]);
    for (const variant of variants) expect(variant['authorization']).not.toBe(base['authorization']);
  });
});
