import { RE2JS } from 're2js';
import { errorMessage } from '../error-message';
import {
  type CompiledTagPolicy,
  MAX_USER_REGEX_LENGTH,
  type PolicyParts,
  type TagPolicy,
  TagPolicyError,
  type TagPolicyField,
  type TagTransform,
  type TemplatePiece,
} from './policy';

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
    const reason = errorMessage(cause);
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
