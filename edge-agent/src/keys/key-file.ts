import { createPrivateKey, type KeyObject } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { edgeKeyId, generateEdgeKeyPair, publicKeyOf } from '../../../shared/edge/sign-in';
import { errorMessage } from '../../../shared/error-message';
import type { EdgeKey } from './edge-key';

/**
 * The key file: an Ed25519 private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the format
 * `openssl genpkey -algorithm ed25519` writes, so a key made either way works, and
 * `openssl pkey -in FILE -pubout` shows its public half. Written with mode 0600.
 */
export class KeyFileError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'KeyFileError';
  }
}

export interface ReadKey extends EdgeKey {
  /** Group or others may read the file (the key is then no longer secret to this host's other users). */
  readableByOthers: boolean;
}

export async function readKeyFile(path: string): Promise<ReadKey> {
  let pem: string;
  let mode: number;
  try {
    const file = await open(path, 'r');
    try {
      mode = (await file.stat()).mode;
      pem = await file.readFile('utf8');
    } finally {
      await file.close();
    }
  } catch (error) {
    throw new KeyFileError(path, `cannot read the key file: ${errorMessage(error)}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw new KeyFileError(
      path,
      `not a PEM private key (${errorMessage(error)}); create one with \`npm run agent -- keygen --key ${path}\``,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new KeyFileError(path, `an Ed25519 key is needed, this is ${key.asymmetricKeyType ?? 'unknown'}`);
  const jwk = key.export({ format: 'jwk' });
  const secretKey = new Uint8Array(Buffer.from(jwk.d ?? '', 'base64url'));
  const publicKey = new Uint8Array(Buffer.from(jwk.x ?? '', 'base64url'));
  if (secretKey.length !== 32 || publicKey.length !== 32) throw new KeyFileError(path, 'malformed Ed25519 key');
  const derived = await publicKeyOf(secretKey);
  if (!Buffer.from(derived).equals(publicKey))
    throw new KeyFileError(path, 'the public key does not belong to the secret key');
  return { secretKey, publicKey, keyId: edgeKeyId(publicKey), readableByOthers: (mode & 0o077) !== 0 };
}

/**
 * A new key pair written to `path` with mode 0600. An existing file is refused unless `force`;
 * then the new key goes to a temporary file beside it first and replaces it by rename, so the old
 * key is never half-overwritten.
 */
export async function writeNewKeyFile(path: string, force = false): Promise<EdgeKey> {
  if (!force && (await exists(path)))
    throw new KeyFileError(path, 'already exists; use --force to replace it (the old key stops working)');
  const { secretKey, publicKey } = await generateEdgeKeyPair();
  const pem = toPkcs8Pem(secretKey, publicKey);
  const target = force ? join(dirname(path), `.${process.pid}-${Date.now()}.key.tmp`) : path;
  try {
    const file = await open(target, 'wx', 0o600);
    try {
      await file.writeFile(pem);
      await file.sync();
    } finally {
      await file.close();
    }
    if (target !== path) await rename(target, path);
  } catch (error) {
    if (target !== path) await rm(target, { force: true });
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new KeyFileError(path, 'already exists; use --force to replace it');
    throw new KeyFileError(path, `cannot write the key file: ${errorMessage(error)}`);
  }
  return { secretKey, publicKey, keyId: edgeKeyId(publicKey) };
}

function toPkcs8Pem(secretKey: Uint8Array, publicKey: Uint8Array): string {
  const jwk = {
    kty: 'OKP',
    crv: 'Ed25519',
    d: Buffer.from(secretKey).toString('base64url'),
    x: Buffer.from(publicKey).toString('base64url'),
  };
  return createPrivateKey({ key: jwk, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }) as string;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
