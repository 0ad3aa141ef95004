import * as v from 'valibot';
import { type EdgeRequest, EdgeRequestSchema } from '../../../shared/edge/protocol';
import type { EdgeErrorCode } from './request-error';

const RequestIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

/** Every method this agent serves, from the schema. */
export const EDGE_METHODS: readonly string[] = EdgeRequestSchema.options.flatMap((option) => {
  const method = option.entries.method;
  return 'literal' in method ? [method.literal] : [...method.options];
});

export type RequestFrameReading =
  | { id: string; request: EdgeRequest }
  | { id: string; error: { code: EdgeErrorCode; message: string } };

/**
 * A `request` frame whose id is readable is answered even when the request itself is not: an
 * unknown method gets `unsupported` (a newer hub may know methods this agent does not), bad fields
 * get `invalid`, and the session goes on. Undefined for anything that is not such a frame; the
 * full frame schema then decides.
 */
export function readRequestFrame(raw: unknown): RequestFrameReading | undefined {
  if (typeof raw !== 'object' || raw === null || (raw as { type?: unknown }).type !== 'request') return undefined;
  const { id, request } = raw as { id?: unknown; request?: unknown };
  if (!v.is(RequestIdSchema, id)) return undefined;
  const parsed = v.safeParse(EdgeRequestSchema, request);
  if (parsed.success) return { id, request: parsed.output };
  const method = typeof request === 'object' && request !== null ? (request as { method?: unknown }).method : undefined;
  if (typeof method === 'string' && !EDGE_METHODS.includes(method))
    return {
      id,
      error: { code: 'unsupported', message: `method ${method.slice(0, 64)} is not supported by this agent` },
    };
  const issue = parsed.issues[0];
  const path = issue?.path?.map((item) => String(item.key)).join('.') ?? '';
  return {
    id,
    error: {
      code: 'invalid',
      message: `invalid request${path ? ` (${path})` : ''}: ${issue?.message ?? 'schema mismatch'}`.slice(0, 256),
    },
  };
}
