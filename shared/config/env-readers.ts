import * as v from 'valibot';
import { ConfigError } from './config-error';

/**
 * Typed readers of single variables. Each is a valibot schema from the raw string to the value,
 * so a failure carries the schema's message and is reported under the variable's name.
 */
export type EnvReader<T> = v.GenericSchema<string, T>;

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

export const envBoolean: EnvReader<boolean> = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.check((s) => TRUE_WORDS.has(s) || FALSE_WORDS.has(s), 'must be true or false'),
  v.transform((s) => TRUE_WORDS.has(s)),
);

export function envInteger(min: number, max: number): EnvReader<number> {
  return v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^-?\d{1,15}$/, `must be an integer from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `must be an integer from ${min} to ${max}`),
    v.maxValue(max, `must be an integer from ${min} to ${max}`),
  );
}

export function envChoice<const T extends readonly [string, ...string[]]>(choices: T): EnvReader<T[number]> {
  return v.pipe(v.string(), v.trim(), v.toLowerCase(), v.picklist(choices, `must be one of ${choices.join(', ')}`));
}

export const envText: EnvReader<string> = v.pipe(v.string(), v.minLength(1, 'must not be empty'));

/** Reads and checks variables from a resolved environment; every error names its variable. */
export class EnvReaderContext {
  constructor(private readonly values: ReadonlyMap<string, string>) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  optional<T>(name: string, reader: EnvReader<T>): T | undefined {
    const raw = this.values.get(name);
    if (raw === undefined) return undefined;
    const result = v.safeParse(reader, raw);
    if (!result.success) {
      const shown = raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
      throw new ConfigError(name, `${result.issues[0]?.message ?? 'invalid value'} (got "${shown}")`);
    }
    return result.output;
  }

  get<T>(name: string, reader: EnvReader<T>, fallback: T): T {
    return this.optional(name, reader) ?? fallback;
  }

  /** Like optional, but the value is a secret: never echoed back in an error message. */
  secret(name: string): string | undefined {
    const raw = this.values.get(name);
    if (raw === undefined) return undefined;
    if (raw.length === 0) throw new ConfigError(name, 'must not be empty');
    return raw;
  }

  names(): IterableIterator<string> {
    return this.values.keys();
  }
}
