// Type only: the engine is loaded by policy-compile.ts, where user regexes are compiled, so an edge
// agent (which compiles none) never loads it (docs/benchmarks.md "Footprint").
import type { RE2JS } from 're2js';

/** User regexes (include, exclude, the whole transform) are capped so a label cannot carry a huge program. */
export const MAX_USER_REGEX_LENGTH = 256;

export interface TagPolicy {
  includeTags?: string | undefined;
  excludeTags?: string | undefined;
  transformTags?: string | undefined;
}

export type TagPolicyField = 'includeTags' | 'excludeTags' | 'transformTags';

export class TagPolicyError extends Error {
  override readonly name = 'TagPolicyError';
  readonly field: TagPolicyField;

  constructor(field: TagPolicyField, message: string, options?: ErrorOptions) {
    super(`tags.policy: ${field} ${message}`, options);
    this.field = field;
  }
}

declare const compiled: unique symbol;

/** A checked policy. Opaque (branded) so a raw TagPolicy cannot be passed where a compiled one is needed. */
export interface CompiledTagPolicy {
  readonly [compiled]: true;
}

/** `$n` inserts capture group n (an unmatched group inserts nothing); anything else is literal. */
export type TemplatePiece = string | number;

export interface TagTransform {
  readonly regex: RE2JS;
  readonly template: readonly TemplatePiece[];
}

export interface PolicyParts {
  readonly include: RE2JS | undefined;
  readonly exclude: RE2JS | undefined;
  readonly transform: TagTransform | undefined;
}

/** The policy with nothing set: every tag of the family is a candidate, tags are not rewritten. */
export const NO_TAG_POLICY: CompiledTagPolicy = Object.freeze({
  include: undefined,
  exclude: undefined,
  transform: undefined,
} satisfies PolicyParts) as unknown as CompiledTagPolicy;

export function policyParts(policy: CompiledTagPolicy | undefined): PolicyParts | undefined {
  return policy as unknown as PolicyParts | undefined;
}

/** Include and exclude look for a match anywhere in the original tag (find, not full match), as WUD does. */
export function passesFilters(parts: PolicyParts, tag: string): boolean {
  if (parts.include !== undefined && !parts.include.test(tag)) return false;
  return parts.exclude === undefined || !parts.exclude.test(tag);
}

/** Rewrites a tag when the regex finds a match in it; a tag without a match is left as it is. */
export function applyTransform(transform: TagTransform, tag: string): string {
  // test() runs on re2js's DFA without capture bookkeeping: several times cheaper for non-matching tags.
  if (!transform.regex.test(tag)) return tag;
  const matcher = transform.regex.matcher(tag);
  if (!matcher.find()) return tag;
  return transform.template.map((piece) => (typeof piece === 'string' ? piece : (matcher.group(piece) ?? ''))).join('');
}
