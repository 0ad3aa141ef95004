// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import { evaluate, printValue, type TemplateValue } from './template-evaluate';
import { type Expression, parseTokens, TemplateSyntaxError, tokenize } from './template-expression';

/** A template split into literal text and `${…}` expressions, parsed once. */
export type CompiledTemplate = readonly (string | Expression)[];

/** Longest template accepted (a rule override is at most 4 KiB; an env template may be longer). */
export const MAX_TEMPLATE_LENGTH = 16 * 1024;
/** Longest rendered text: values come from container records, which a label can make long. */
export const MAX_RENDERED_LENGTH = 64 * 1024;

/**
 * Compiles `Update ${container.name} to ${container.updateKind.remoteValue}`. A `$` not followed
 * by `{` is literal text. Throws TemplateSyntaxError (with the position) for a bad expression, so
 * configuration and PATCH can refuse it instead of sending broken messages later.
 */
export function compileTemplate(source: string): CompiledTemplate {
  if (source.length > MAX_TEMPLATE_LENGTH)
    throw new TemplateSyntaxError(`template longer than ${MAX_TEMPLATE_LENGTH} characters`, 0);
  const parts: (string | Expression)[] = [];
  let text = '';
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('${', i);
    if (open === -1) {
      text += source.slice(i);
      break;
    }
    text += source.slice(i, open);
    const { tokens, end } = tokenize(source, open + 2, true);
    if (tokens.length === 1) throw new TemplateSyntaxError('empty ${}', open);
    if (text) parts.push(text);
    text = '';
    parts.push(parseTokens(tokens));
    i = end + 1;
  }
  if (text) parts.push(text);
  return parts;
}

export function renderCompiled(template: CompiledTemplate, scope: Readonly<Record<string, TemplateValue>>): string {
  let out = '';
  for (const part of template) {
    out += typeof part === 'string' ? part : printValue(evaluate(part, scope));
    if (out.length > MAX_RENDERED_LENGTH) return `${out.slice(0, MAX_RENDERED_LENGTH)}…`;
  }
  return out;
}

/** The syntax problem of a template, or undefined when it compiles. */
export function templateProblem(source: string): string | undefined {
  try {
    compileTemplate(source);
    return undefined;
  } catch (error) {
    if (error instanceof TemplateSyntaxError) return error.message;
    throw error;
  }
}

const CACHE_LIMIT = 500;

/**
 * Renders with a cache of compiled templates: a batch of a thousand containers renders the same
 * few templates a thousand times. A template that does not compile renders as its own text, so a
 * bad stored override still sends something recognisable (new ones are refused at the door).
 */
export function createTemplateRenderer(): (source: string, scope: Readonly<Record<string, TemplateValue>>) => string {
  const cache = new Map<string, CompiledTemplate>();
  return (source, scope) => {
    let compiled = cache.get(source);
    if (!compiled) {
      try {
        compiled = compileTemplate(source);
      } catch (error) {
        if (!(error instanceof TemplateSyntaxError)) throw error;
        compiled = [source.slice(0, MAX_RENDERED_LENGTH)];
      }
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(source, compiled);
    }
    return renderCompiled(compiled, scope);
  };
}
