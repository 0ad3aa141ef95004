/** Structured logs are long: beyond this a line is shown as it is rather than parsed on every render. */
const MAX_PARSED = 64 * 1024;

/**
 * A line that is a JSON object or array (structured logging), indented two spaces; undefined for
 * any other text, so it is shown as written.
 */
export function prettyJson(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length < 2 || trimmed.length > MAX_PARSED) return undefined;
  const open = trimmed[0];
  if (!((open === '{' && trimmed.endsWith('}')) || (open === '[' && trimmed.endsWith(']')))) return undefined;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return undefined;
  }
}
