import * as v from 'valibot';

/**
 * Building blocks of the providers' `keys` schemas. Every value arrives as the string of a
 * `DD_NOTIFICATION_<TYPE>_<NAME>_<KEY>` variable; a failed check is reported by the core as a
 * ConfigError naming that variable, so messages here say only what is wrong with the value.
 */

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A required http(s) URL. */
export const httpUrl = () => v.pipe(v.string(), v.trim(), v.check(isHttpUrl, 'must be an http:// or https:// URL'));

/** A required, non-empty string. */
export const text = () => v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'));

/** An integer in [min, max]. */
export const integer = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^-?\d+$/, `must be an integer from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `must be an integer from ${min} to ${max}`),
    v.maxValue(max, `must be an integer from ${min} to ${max}`),
  );

/** `true` or `false` (any case). */
export const boolean = () =>
  v.pipe(
    v.string(),
    v.trim(),
    v.toLowerCase(),
    v.picklist(['true', 'false'], 'must be true or false'),
    v.transform((value) => value === 'true'),
  );

/** One of a fixed list, compared in lower case. */
export const choice = <const T extends readonly [string, ...string[]]>(values: T) =>
  v.pipe(v.string(), v.trim(), v.toLowerCase(), v.picklist(values, `must be one of ${values.join(', ')}`));

/**
 * The object of a provider's keys. Strict, so a misspelt key (`_TOKNE`) stops start-up instead of
 * being ignored; the core removes the common keys (THRESHOLD, MODE, …) before this runs.
 */
export function providerKeys<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.strictObject(entries, (issue) => {
    if (issue.expected === 'never') return `unknown key; known: ${Object.keys(entries).join(', ')}`;
    // A required key that is absent is reported on the object, with the key in the path.
    return issue.path?.length ? 'is required' : 'must be an object of keys';
  });
}

/**
 * A rule between keys (`channel` is required with `token`), reported against `key` so the core's
 * ConfigError names that key's variable.
 */
export function requireWith<TConfig extends Record<string, unknown>>(
  key: keyof TConfig & string,
  holds: (config: TConfig) => boolean,
  message: string,
) {
  return v.forward<TConfig, v.CheckIssue<TConfig>, readonly [string]>(v.check(holds, message), [key] as never);
}

/** `base` (with or without a trailing slash, perhaps with a path of its own) + `/path`. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
