/** One challenge of a WWW-Authenticate header: `Bearer realm="…",service="…",scope="…"`. */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

const MAX_HEADER_LENGTH = 4096;
const MAX_PARAMS = 16;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const UNQUOTED_VALUE = /^[^\s,"]+/;

/**
 * Parses the challenges of a WWW-Authenticate header (RFC 9110 §11.6.1). It is an untrusted
 * input: oversized headers, unterminated quotes and too many parameters give an empty result
 * instead of a hang or a throw. Parameter names are lower-cased; values keep their case.
 */
export function parseWwwAuthenticate(header: string | null | undefined): AuthChallenge[] {
  if (!header || header.length > MAX_HEADER_LENGTH) return [];
  const challenges: AuthChallenge[] = [];
  let rest = header.trim();
  let current: AuthChallenge | undefined;
  while (rest.length > 0) {
    const name = TOKEN.exec(rest)?.[0];
    if (!name) return challenges;
    rest = rest.slice(name.length).trimStart();
    if (rest.startsWith('=') && current) {
      rest = rest.slice(1).trimStart();
      const parsed = readValue(rest);
      if (!parsed) return challenges;
      if (Object.keys(current.params).length >= MAX_PARAMS) return [];
      current.params[name.toLowerCase()] = parsed.value;
      rest = parsed.rest.trimStart();
    } else {
      current = { scheme: name.toLowerCase(), params: Object.create(null) as Record<string, string> };
      challenges.push(current);
    }
    if (rest.startsWith(',')) rest = rest.slice(1).trimStart();
  }
  return challenges;
}

function readValue(input: string): { value: string; rest: string } | undefined {
  if (!input.startsWith('"')) {
    // RFC tokens exclude ':' and '/', but some registries send realms unquoted: read to the next separator.
    const bare = UNQUOTED_VALUE.exec(input)?.[0];
    return bare ? { value: bare, rest: input.slice(bare.length) } : undefined;
  }
  let value = '';
  for (let i = 1; i < input.length; i++) {
    const ch = input[i] as string;
    if (ch === '\\' && i + 1 < input.length) {
      value += input[++i];
    } else if (ch === '"') {
      return { value, rest: input.slice(i + 1) };
    } else {
      value += ch;
    }
  }
  return undefined;
}
