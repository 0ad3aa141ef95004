import * as v from 'valibot';

/** Every 4xx and 5xx body (http-interface §2.15). */
export const ErrorBodySchema = v.object({
  error: v.string(),
  details: v.optional(v.record(v.string(), v.unknown())),
});
export type ErrorBody = v.InferOutput<typeof ErrorBodySchema>;
