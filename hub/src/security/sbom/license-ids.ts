/**
 * The SPDX licence identifiers written as identifiers in the documents: the ones package databases
 * commonly state. The full SPDX list (600+ ids) is not carried in the hub; any other licence text is
 * written as a name (CycloneDX) or a `LicenseRef-` with its text (SPDX), which both formats allow.
 */
const IDS = [
  '0BSD',
  'AFL-2.1',
  'AGPL-3.0-only',
  'AGPL-3.0-or-later',
  'Apache-1.1',
  'Apache-2.0',
  'Artistic-1.0',
  'Artistic-1.0-Perl',
  'Artistic-2.0',
  'BSD-1-Clause',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'BSD-4-Clause',
  'BSL-1.0',
  'CC-BY-3.0',
  'CC-BY-4.0',
  'CC-BY-SA-4.0',
  'CC0-1.0',
  'CDDL-1.0',
  'CDDL-1.1',
  'EPL-1.0',
  'EPL-2.0',
  'GFDL-1.3-only',
  'GFDL-1.3-or-later',
  'GPL-1.0-or-later',
  'GPL-2.0-only',
  'GPL-2.0-or-later',
  'GPL-3.0-only',
  'GPL-3.0-or-later',
  'ISC',
  'LGPL-2.0-only',
  'LGPL-2.0-or-later',
  'LGPL-2.1-only',
  'LGPL-2.1-or-later',
  'LGPL-3.0-only',
  'LGPL-3.0-or-later',
  'MIT',
  'MIT-0',
  'MPL-1.1',
  'MPL-2.0',
  'OpenSSL',
  'PSF-2.0',
  'Python-2.0',
  'Ruby',
  'Unlicense',
  'WTFPL',
  'X11',
  'Zlib',
  'curl',
  'BlueOak-1.0.0',
];
/** SPDX exceptions (`WITH`) in the same spirit. */
const EXCEPTIONS = ['Classpath-exception-2.0', 'GCC-exception-3.1', 'LLVM-exception', 'OpenSSL-exception'];

const BY_LOWER = new Map(IDS.map((id) => [id.toLowerCase(), id]));
const EXCEPTION_BY_LOWER = new Map(EXCEPTIONS.map((id) => [id.toLowerCase(), id]));

/** The canonical id when `text` is one of the known ones (case-insensitive, as SPDX matches them). */
export function knownLicenseId(text: string): string | undefined {
  return BY_LOWER.get(text.trim().toLowerCase());
}

/**
 * `text` as an SPDX expression of known ids (`MIT OR Apache-2.0`, `GPL-2.0-only WITH Classpath-exception-2.0`,
 * with parentheses), canonical case, or undefined when any part of it is not.
 */
export function knownLicenseExpression(text: string): string | undefined {
  const tokens = text
    .replace(/([()])/g, ' $1 ')
    .trim()
    .split(/\s+/);
  const out: string[] = [];
  let expectOperand = true;
  let depth = 0;
  let afterWith = false;
  for (const token of tokens) {
    const upper = token.toUpperCase();
    if (token === '(') {
      if (!expectOperand) return undefined;
      depth++;
      out.push(token);
    } else if (token === ')') {
      if (expectOperand || depth === 0) return undefined;
      depth--;
      out.push(token);
    } else if (upper === 'AND' || upper === 'OR' || upper === 'WITH') {
      if (expectOperand) return undefined;
      afterWith = upper === 'WITH';
      expectOperand = true;
      out.push(upper);
    } else {
      if (!expectOperand) return undefined;
      const id = afterWith ? EXCEPTION_BY_LOWER.get(token.toLowerCase()) : knownLicenseId(token.replace(/\+$/, ''));
      if (!id) return undefined;
      out.push(!afterWith && token.endsWith('+') ? `${id}+` : id);
      afterWith = false;
      expectOperand = false;
    }
  }
  if (expectOperand || depth !== 0 || out.length === 0) return undefined;
  return out.join(' ').replace(/\( /g, '(').replace(/ \)/g, ')');
}
