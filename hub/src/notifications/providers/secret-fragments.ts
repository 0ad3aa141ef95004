/** Pieces shorter than this are not worth hiding (and would blank out ordinary words). */
const MIN_FRAGMENT = 6;

/**
 * The substrings of secret values that must not appear in an error message. A webhook URL is a
 * secret as a whole, but a receiver may echo only its path or one query value
 * (`unknown webhook 123/AbC…`), so a URL's password and each path segment or query value that
 * looks generated counts too.
 */
export function secretFragments(values: readonly (string | undefined)[]): string[] {
  const fragments = new Set<string>();
  const add = (fragment: string) => {
    if (fragment.length >= MIN_FRAGMENT) fragments.add(fragment);
  };
  for (const value of values) {
    if (!value) continue;
    add(value);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      continue;
    }
    add(safeDecode(url.password));
    for (const segment of url.pathname.split('/')) {
      if (!looksGenerated(segment)) continue;
      add(segment);
      add(safeDecode(segment));
    }
    for (const [, query] of url.searchParams) if (looksGenerated(query)) add(query);
  }
  // Longest first, so a fragment inside a longer one cannot leave part of the longer one behind.
  return [...fragments].sort((a, b) => b.length - a.length);
}

/** Replaces every fragment by `***`. */
export function scrubSecrets(text: string, fragments: readonly string[]): string {
  let out = text;
  for (const fragment of fragments) out = out.split(fragment).join('***');
  return out;
}

/** Ids and tokens (`123456789012345678`, `AbCdEf…`), not words of the path (`webhooks`, `messages`). */
function looksGenerated(part: string): boolean {
  return /\d/.test(part) || part.length >= 16;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
