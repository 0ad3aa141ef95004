import { RE2JS } from 're2js';

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
type TemplatePiece = string | number;

export interface TagTransform {
  readonly regex: RE2JS;
  readonly template: readonly TemplatePiece[];
}

export interface PolicyParts {
  readonly include: RE2JS | undefined;
  readonly exclude: RE2JS | undefined;
  readonly transform: TagTransform | undefined;
}

/**
 * Checks and compiles a policy with re2js (linear time, so a user's regex cannot hang the watcher).
 * Empty or blank fields count as unset. Throws TagPolicyError naming the bad field.
 */
export function compileTagPolicy(policy: TagPolicy): CompiledTagPolicy {
  const parts: PolicyParts = {
    include: compileField('includeTags', policy.includeTags),
    exclude: compileField('excludeTags', policy.excludeTags),
    transform: compileTransform(policy.transformTags),
  };
  return parts as unknown as CompiledTagPolicy;
}

/** The policy with nothing set: every tag of the family is a candidate, tags are not rewritten. */
export const NO_TAG_POLICY: CompiledTagPolicy = compileTagPolicy({});

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

function compileField(field: TagPolicyField, raw: string | undefined): RE2JS | undefined {
  const value = readField(field, raw);
  return value === undefined ? undefined : compileRegex(field, value);
}

/** The field's text, or undefined when blank (an empty label). A non-string is a configuration error, not a crash. */
function readField(field: TagPolicyField, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new TagPolicyError(field, `must be a string, got ${typeof value}`);
  if (value.trim() === '') return undefined;
  checkLength(field, value);
  return value;
}

function checkLength(field: TagPolicyField, value: string): void {
  if (value.length > MAX_USER_REGEX_LENGTH) {
    throw new TagPolicyError(field, `is ${value.length} characters long; the limit is ${MAX_USER_REGEX_LENGTH}`);
  }
}

function compileRegex(field: TagPolicyField, pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new TagPolicyError(field, `is not a valid regular expression (RE2 syntax): ${reason}`, { cause });
  }
}

function compileTransform(raw: string | undefined): TagTransform | undefined {
  const value = readField('transformTags', raw);
  if (value === undefined) return undefined;
  const arrow = value.indexOf('=>');
  const pattern = arrow < 0 ? '' : value.slice(0, arrow).trim();
  const template = arrow < 0 ? '' : value.slice(arrow + 2).trim();
  if (pattern === '' || template === '') {
    throw new TagPolicyError(
      'transformTags',
      'must have the form `regex => template`, e.g. `^(\\d+\\.\\d+\\.\\d+)-.*$ => $1`',
    );
  }
  const regex = compileRegex('transformTags', pattern);
  return { regex, template: parseTemplate(template, regex.groupCount()) };
}

function parseTemplate(template: string, groupCount: number): TemplatePiece[] {
  const pieces: TemplatePiece[] = [];
  const reference = /\$(\d{1,2})/g;
  let last = 0;
  for (const match of template.matchAll(reference)) {
    const digits = match[1] ?? '';
    // `$12` means group 12 only when the regex has that many groups; otherwise group 1, then a literal 2.
    const twoDigits = digits.length === 2 && Number(digits) <= groupCount;
    const group = twoDigits ? Number(digits) : Number(digits[0]);
    if (group > groupCount) {
      throw new TagPolicyError('transformTags', `refers to group $${group} but the regex has ${groupCount} group(s)`);
    }
    pieces.push(template.slice(last, match.index), group);
    last = match.index + (twoDigits ? 3 : 2);
  }
  pieces.push(template.slice(last));
  return pieces.filter((piece) => piece !== '');
}
