import * as v from 'valibot';

/** keyId of an edge key (decisions §6): the first 8 bytes of SHA-256 of the raw public key, lower-case hex. */
export const EDGE_KEY_ID_PATTERN = /^[0-9a-f]{16}$/;
const LABEL_MAX = 100;

const IsoTimestampSchema = v.pipe(v.string(), v.isoTimestamp());
const LabelSchema = v.pipe(v.string(), v.trim(), v.maxLength(LABEL_MAX, `a label has at most ${LABEL_MAX} characters`));

/** One registered Ed25519 public key, as stored and as listed (nothing in it is secret). */
export const EdgeKeySchema = v.object({
  keyId: v.pipe(v.string(), v.regex(EDGE_KEY_ID_PATTERN)),
  /** The raw 32-byte key, standard base64. */
  publicKey: v.string(),
  label: v.string(),
  createdAt: IsoTimestampSchema,
  revokedAt: v.nullable(IsoTimestampSchema),
});
export type EdgeKey = v.InferOutput<typeof EdgeKeySchema>;

/** GET /api/v1/edge/keys lists each key with the agent names bound to it. */
export const EdgeKeyResourceSchema = v.object({ ...EdgeKeySchema.entries, agentNames: v.array(v.string()) });

/** POST /api/v1/edge/keys. That publicKey decodes to 32 bytes is checked by the route (400 otherwise). */
export const RegisterEdgeKeyBodySchema = v.strictObject({
  publicKey: v.pipe(v.string(), v.maxLength(200)),
  label: v.optional(LabelSchema, ''),
});

export const RegisteredEdgeKeySchema = v.object({ keyId: v.string(), label: v.string(), createdAt: v.string() });

/** A name is bound to the first key that signs in with it, for good (docs/edge-protocol.md). */
export const AgentNameBindingSchema = v.object({
  agentName: v.string(),
  keyId: v.pipe(v.string(), v.regex(EDGE_KEY_ID_PATTERN)),
  boundAt: IsoTimestampSchema,
});
export type AgentNameBinding = v.InferOutput<typeof AgentNameBindingSchema>;
