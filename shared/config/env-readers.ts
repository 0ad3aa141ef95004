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

/**
 * What a refused value's error may quote of it: the text, or undefined for nothing. The hub passes
 * its table of secret variables, default-deny (hub/src/config/secret-variables.ts).
 */
export type QuoteValue = (name: string, value: string) => string | undefined;

/** Reads and checks variables from a resolved environment; every error names its variable. */
export class EnvReaderContext {
  constructor(
    private readonly values: ReadonlyMap<string, string>,
    private readonly quote: QuoteValue = (_name, value) => value,
  ) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  optional<T>(name: string, reader: EnvReader<T>): T | undefined {
    const raw = this.values.get(name);
    if (raw === undefined) return undefined;
    const result = v.safeParse(reader, raw);
    if (!result.success) {
      const message = result.issues[0]?.message ?? 'invalid value';
      const quoted = this.quote(name, raw);
      if (quoted === undefined) throw new ConfigError(name, message);
      const shown = quoted.length > 60 ? `${quoted.slice(0, 60)}…` : quoted;
      throw new ConfigError(name, `${message} (got "${shown}")`);
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
