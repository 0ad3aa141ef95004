import { argon2id } from '@noble/hashes/argon2.js';

/** The sign-in tests' users: `alice` with a password, `bob` with the same password, TOTP and recovery codes. */
export const PASSWORD = 'correct horse battery staple';
export const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
export const RECOVERY = ['rc-one-1111', 'rc-two-2222'];

function phc(password: string): string {
  const salt = new TextEncoder().encode('saltsaltsalt');
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');
  const hash = argon2id(password, salt, { t: 1, m: 64, p: 1, dkLen: 32 });
  return `$argon2id$v=19$m=64,t=1,p=1$${b64(salt)}$${b64(hash)}`;
}
export const HASH = phc(PASSWORD);

/** The configuration of those two users. */
export const BASIC_AUTH_ENV = {
  DD_AUTH_BASIC_ALICE_USER: 'alice',
  DD_AUTH_BASIC_ALICE_HASH: HASH,
  DD_AUTH_BASIC_BOB_USER: 'bob',
  DD_AUTH_BASIC_BOB_HASH: HASH,
  DD_AUTH_BASIC_BOB_TOTP: TOTP_SECRET,
  DD_AUTH_BASIC_BOB_RECOVERY: RECOVERY.join(','),
};
