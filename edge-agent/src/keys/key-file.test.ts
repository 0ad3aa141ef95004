import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EDGE_PROTOCOL } from '../../../shared/edge/protocol';
import {
  edgeKeyId,
  fromBase64,
  newChallenge,
  signChallenge,
  toBase64,
  verifySignIn,
} from '../../../shared/edge/sign-in';
import { KeyFileError, readKeyFile, writeNewKeyFile } from './key-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edge-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the agent key file', () => {
  it('is written as PKCS#8 PEM with mode 0600 and reads back to a key that signs in', async () => {
    const path = join(dir, 'agent.key');
    const written = await writeNewKeyFile(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
    const read = await readKeyFile(path);
    expect(read.keyId).toBe(written.keyId);
    expect(read.keyId).toBe(edgeKeyId(read.publicKey));
    expect(toBase64(read.publicKey)).toBe(toBase64(written.publicKey));
    expect(read.readableByOthers).toBe(false);
    const challenge = newChallenge();
    const signature = await signChallenge(read.secretKey, challenge, EDGE_PROTOCOL, read.keyId, 'nas');
    expect(await verifySignIn(written.publicKey, signature, challenge, EDGE_PROTOCOL, read.keyId, 'nas')).toBe(true);
  });

  it('refuses to overwrite an existing file unless forced, then replaces the key', async () => {
    const path = join(dir, 'agent.key');
    const first = await writeNewKeyFile(path);
    await expect(writeNewKeyFile(path)).rejects.toThrow(/already exists; use --force/);
    expect((await readKeyFile(path)).keyId).toBe(first.keyId);
    const second = await writeNewKeyFile(path, true);
    expect(second.keyId).not.toBe(first.keyId);
    expect((await readKeyFile(path)).keyId).toBe(second.keyId);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('reads a key made by openssl genpkey, and its public half matches openssl pkey -pubout', async () => {
    const path = join(dir, 'openssl.key');
    const made = spawnSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', path]);
    if (made.error) throw new Error(`openssl is needed for this test: ${made.error.message}`);
    const key = await readKeyFile(path);
    const der = spawnSync('openssl', ['pkey', '-in', path, '-pubout', '-outform', 'DER']).stdout;
    // An Ed25519 SubjectPublicKeyInfo is a 12-byte header and the raw 32-byte key.
    expect(toBase64(new Uint8Array(der.subarray(12)))).toBe(toBase64(key.publicKey));
    expect(fromBase64(toBase64(key.publicKey))).toHaveLength(32);
  });

  it('says when others may read the key', async () => {
    const path = join(dir, 'open.key');
    await writeNewKeyFile(path);
    await chmod(path, 0o644);
    expect((await readKeyFile(path)).readableByOthers).toBe(true);
  });

  it.each([
    ['missing', async () => join(dir, 'none.key'), /cannot read the key file/],
    ['not PEM', async () => writeText('garbage'), /not a PEM private key/],
    [
      'an RSA key',
      async () =>
        writeText(
          generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
            type: 'pkcs8',
            format: 'pem',
          }) as string,
        ),
      /an Ed25519 key is needed, this is rsa/,
    ],
  ])('refuses a key file that is %s, naming the file', async (_what, make, message) => {
    const path = await make();
    const error = await readKeyFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyFileError);
    expect((error as Error).message.startsWith(`${path}: `)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});

async function writeText(content: string): Promise<string> {
  const path = join(dir, 'text.key');
  await writeFile(path, content, { mode: 0o600 });
  return path;
}
