/** An agent's Ed25519 key pair as the sign-in uses it. */
export interface EdgeKey {
  /** The 32-byte secret seed. */
  secretKey: Uint8Array;
  /** The raw 32-byte public key an admin registers. */
  publicKey: Uint8Array;
  /** First 8 bytes of SHA-256 of the public key, hex (shared/edge/sign-in.ts edgeKeyId). */
  keyId: string;
}
