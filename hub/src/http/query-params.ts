import * as v from 'valibot';
import { parseIsoInstant } from '../../../shared/update/timestamp';

/**
 * One query parameter: a valibot schema from the raw text (or undefined when absent) to the
 * value, and the JSON schema that the OpenAPI document shows for it. Both come from the same
 * options, so what is documented is what is checked.
 */
export interface QueryParam<T> {
  schema: v.GenericSchema<string | undefined, T>;
  json: Record<string, unknown>;
  description?: string;
}

export type QuerySpec = Record<string, QueryParam<unknown>>;
export type QueryValues<Q extends QuerySpec> = { [K in keyof Q]: Q[K] extends QueryParam<infer T> ? T : never };

const MAX_QUERY_TEXT = 512;

export function qInt<D extends number | undefined = undefined>(options: {
  min: number;
  max: number;
  default?: D;
  description?: string;
}): QueryParam<D extends number ? number : number | undefined> {
  const range = `must be an integer from ${options.min} to ${options.max}`;
  const parsed = v.pipe(
    v.string(),
    v.regex(/^-?\d{1,16}$/, range),
    v.transform(Number),
    v.minValue(options.min, range),
    v.maxValue(options.max, range),
  );
  return {
    schema: v.optional(parsed, options.default === undefined ? undefined : String(options.default)) as never,
    json: {
      type: 'integer',
      minimum: options.min,
      maximum: options.max,
      ...(options.default !== undefined && { default: options.default }),
    },
    ...(options.description !== undefined && { description: options.description }),
  };
}

export function qBool(options: { default: boolean; description?: string }): QueryParam<boolean> {
  return {
    schema: v.optional(
      v.pipe(
        v.string(),
        v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
        v.transform((s) => s === 'true' || s === '1'),
      ),
      String(options.default),
    ) as never,
    json: { type: 'boolean', default: options.default },
    ...(options.description !== undefined && { description: options.description }),
  };
}

export function qEnum<const T extends readonly [string, ...string[]]>(
  values: T,
  options: { description?: string } = {},
): QueryParam<T[number] | undefined> {
  return {
    schema: v.optional(v.picklist(values, `must be one of ${values.join(', ')}`)),
    json: { type: 'string', enum: [...values] },
    ...(options.description !== undefined && { description: options.description }),
  };
}

export function qText(
  options: { maxLength?: number; pattern?: RegExp; patternText?: string; description?: string } = {},
): QueryParam<string | undefined> {
  const max = options.maxLength ?? MAX_QUERY_TEXT;
  const checks = [v.maxLength<string, number, string>(max, `must be at most ${max} characters`)] as const;
  const schema = options.pattern
    ? v.pipe(
        v.string(),
        ...checks,
        v.regex(options.pattern, options.patternText ?? 'has characters that are not allowed'),
      )
    : v.pipe(v.string(), ...checks);
  return {
    schema: v.optional(schema),
    json: { type: 'string', maxLength: max, ...(options.pattern && { pattern: options.pattern.source }) },
    ...(options.description !== undefined && { description: options.description }),
  };
}

/**
 * An ISO 8601 date, or date-time with a zone, as Unix milliseconds; read strictly (no 30 February,
 * nothing before 1970) by the same reader the update rules use.
 */
export function qIsoDate(options: { description?: string } = {}): QueryParam<number | undefined> {
  const message = 'must be an ISO 8601 date or date-time with a zone, from 1970 on';
  return {
    schema: v.optional(
      v.pipe(
        v.string(),
        v.transform((s) => parseIsoInstant(s)),
        v.check((ms): ms is number => ms !== undefined, message),
      ),
    ) as never,
    json: { type: 'string', format: 'date-time' },
    ...(options.description !== undefined && { description: options.description }),
  };
}

/** A comma-separated list of values from a fixed set. */
export function qEnumList<const T extends readonly [string, ...string[]]>(
  values: T,
  options: { description?: string } = {},
): QueryParam<T[number][] | undefined> {
  const allowed = new Set<string>(values);
  return {
    schema: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(4096, 'is too long'),
        v.transform((s) =>
          s
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean),
        ),
        v.check(
          (list) => list.every((item) => allowed.has(item)),
          `must be a comma-separated list of ${values.join(', ')}`,
        ),
      ),
    ) as never,
    json: { type: 'string', description: `Comma-separated list of: ${values.join(', ')}` },
    ...(options.description !== undefined && { description: options.description }),
  };
}
