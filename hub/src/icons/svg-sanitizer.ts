/**
 * An SVG icon rebuilt from an allow-list (docs/icons.md "SVG sanitising"). The hub serves icons
 * from its own origin, so an upstream SVG must not carry anything that runs or reaches out: the
 * input is tokenised, and only known drawing elements and attributes are written back, every value
 * re-escaped. What is not understood is dropped, never passed through. No DOM is needed, so this
 * runs on every runtime.
 */

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
const XLINK_NAMESPACE = 'http://www.w3.org/1999/xlink';

const ALLOWED_ELEMENTS = new Set([
  'svg',
  'g',
  'defs',
  'symbol',
  'use',
  'title',
  'desc',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'linearGradient',
  'radialGradient',
  'stop',
  'clipPath',
  'mask',
  'pattern',
  'marker',
  'filter',
  'feBlend',
  'feColorMatrix',
  'feComponentTransfer',
  'feComposite',
  'feDropShadow',
  'feFlood',
  'feFuncA',
  'feFuncB',
  'feFuncG',
  'feFuncR',
  'feGaussianBlur',
  'feMerge',
  'feMergeNode',
  'feMorphology',
  'feOffset',
  'style',
]);

/** Wrappers whose children are kept when they themselves are dropped (a link, an editor's switch). */
const UNWRAPPED_ELEMENTS = new Set(['a', 'switch']);

const ALLOWED_ATTRIBUTES = new Set([
  'id',
  'class',
  'style',
  'xmlns',
  'xmlns:xlink',
  'xml:space',
  'version',
  'viewBox',
  'preserveAspectRatio',
  'width',
  'height',
  'x',
  'y',
  'x1',
  'x2',
  'y1',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'fx',
  'fy',
  'fr',
  'd',
  'points',
  'pathLength',
  'transform',
  'href',
  'xlink:href',
  'fill',
  'fill-opacity',
  'fill-rule',
  'clip-rule',
  'clip-path',
  'clipPathUnits',
  'mask',
  'maskUnits',
  'maskContentUnits',
  'opacity',
  'color',
  'display',
  'visibility',
  'overflow',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-dasharray',
  'stroke-dashoffset',
  'vector-effect',
  'shape-rendering',
  'paint-order',
  'offset',
  'stop-color',
  'stop-opacity',
  'gradientUnits',
  'gradientTransform',
  'spreadMethod',
  'patternUnits',
  'patternContentUnits',
  'patternTransform',
  'markerWidth',
  'markerHeight',
  'markerUnits',
  'refX',
  'refY',
  'orient',
  'marker-start',
  'marker-mid',
  'marker-end',
  'filter',
  'filterUnits',
  'primitiveUnits',
  'in',
  'in2',
  'result',
  'stdDeviation',
  'dx',
  'dy',
  'mode',
  'operator',
  'k1',
  'k2',
  'k3',
  'k4',
  'values',
  'type',
  'tableValues',
  'slope',
  'intercept',
  'amplitude',
  'exponent',
  'radius',
  'flood-color',
  'flood-opacity',
  'color-interpolation-filters',
  'font-family',
  'font-size',
  'font-style',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
  'letter-spacing',
  'text-rendering',
  'enable-background',
]);

/** The five XML entities and numeric references; an SVG that declares its own entities loses them. */
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export class SvgRejected extends Error {}

/**
 * The text with its references decoded; `valid` is false when it held an undeclared entity or a
 * bare `&`, each of which is left out of `text`.
 */
function decodeReferences(text: string): { text: string; valid: boolean } {
  let valid = true;
  const decoded = text.replace(
    /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9_.-]*);|&/g,
    (_all, ref?: string) => {
      if (ref === undefined) {
        valid = false;
        return '';
      }
      if (ref.startsWith('#')) {
        const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
        if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) return String.fromCodePoint(code);
        valid = false;
        return '';
      }
      const named = NAMED_ENTITIES[ref];
      if (named === undefined) valid = false;
      return named ?? '';
    },
  );
  return { text: decoded, valid };
}

/** An attribute value decoded, or undefined (the attribute is dropped) when it held an unknown reference. */
function decodeEntities(text: string): string | undefined {
  const decoded = decodeReferences(text);
  return decoded.valid ? decoded.text : undefined;
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

/**
 * A CSS text (a style attribute or a `<style>` element) that could fetch or run something:
 * url() but as a reference to a #fragment, image-set(), @import, expressions, scripts, or escapes
 * that could hide them.
 */
export function isUnsafeCss(css: string): boolean {
  const lower = css.toLowerCase();
  if (lower.includes('\\') || lower.includes('<')) return true;
  if (/expression\s*\(|javascript:|vbscript:|behavior\s*:|-moz-binding/.test(lower)) return true;
  return cssForms(css).some((text) => FETCHING_CSS.test(text.replace(REFERENCE_DECLARATION, '$1')));
}

/**
 * What names something to fetch in CSS: url(), image-set() and its -webkit- twin (which take bare
 * strings, no url() at all), the other image functions, @import.
 */
const FETCHING_CSS = /url\s*\(|image-set|@import|(?:^|[^\w-])(?:image|cross-fade|src)\s*\(/;

/**
 * The properties whose url(#id) names an element of the document. Anywhere else (cursor,
 * background, content, list-style, border-image…) a browser fetches the page itself for a
 * `url(#id)`, so there it is refused like any other url().
 */
const REFERENCE_PROPERTIES = [
  'fill',
  'stroke',
  'clip-path',
  'filter',
  'mask',
  'marker-start',
  'marker-mid',
  'marker-end',
];
const FRAGMENT_URL = `url\\(\\s*(['"]?)#[\\w.:-]+\\2\\s*\\)`;
/** `fill: url(#g)` and its kin in a style sheet, removed before FETCHING_CSS looks. */
const REFERENCE_DECLARATION = new RegExp(
  `((?:^|[;{\\s])(?:${REFERENCE_PROPERTIES.join('|')}|marker)\\s*:\\s*)${FRAGMENT_URL}`,
  'g',
);
/** `url(#g)` in a presentation attribute of REFERENCE_PROPERTIES. */
const REFERENCE_VALUE = new RegExp(`()${FRAGMENT_URL}`, 'g');

/**
 * The text as written and again with comments removed and CSS escapes decoded (CSS Syntax §4.3.7),
 * lower-cased: `\75rl(` is the url( a browser reads.
 */
function cssForms(css: string): string[] {
  const unescaped = css
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, '')
    .replace(/\\(?:([0-9a-fA-F]{1,6})(?:\r\n|[ \t\n\r\f])?|\r\n|[\n\r\f]|([\s\S]))/g, (_all, hex, char) => {
      if (hex === undefined) return char ?? '';
      const code = Number.parseInt(hex, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
        ? '\ufffd'
        : String.fromCodePoint(code);
    });
  return [css.toLowerCase(), unescaped.toLowerCase()];
}

/** An attribute's value as it may be written back, or undefined to drop the attribute. */
function safeAttributeValue(name: string, value: string): string | undefined {
  // A browser reads presentation attributes as CSS: an escape could spell url( or image-set(.
  if (value.includes('\\')) return undefined;
  const compact = value.replace(/[\s\u0000-\u001f]+/g, '').toLowerCase();
  if (compact.includes('javascript:') || compact.includes('data:') || compact.includes('vbscript:')) return undefined;
  if (name === 'href' || name === 'xlink:href')
    return /^#[A-Za-z0-9_.:-]+$/.test(value.trim()) ? value.trim() : undefined;
  if (name === 'style') return isUnsafeCss(value) ? undefined : value;
  if (name === 'xmlns') return SVG_NAMESPACE;
  if (name === 'xmlns:xlink') return XLINK_NAMESPACE;
  // Paint and reference attributes may point at a fragment of this document, nowhere else.
  const references = REFERENCE_PROPERTIES.includes(name);
  const fetches = cssForms(value).some((text) =>
    FETCHING_CSS.test(references ? text.replace(REFERENCE_VALUE, '') : text),
  );
  return fetches ? undefined : value;
}

interface Tag {
  name: string;
  attributes: [string, string][];
  selfClosing: boolean;
}

const NAME = '[A-Za-z_][A-Za-z0-9_.:-]*';
const START_TAG = new RegExp(`^<(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"]*"|'[^']*'))*)\\s*(/?)>`);
const ATTRIBUTE = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'g');
const END_TAG = new RegExp(`^</(${NAME})\\s*>`);

function parseStartTag(source: string): { tag: Tag; length: number } | undefined {
  const match = START_TAG.exec(source);
  if (!match) return undefined;
  const attributes: [string, string][] = [];
  for (const attribute of (match[2] ?? '').matchAll(ATTRIBUTE)) {
    attributes.push([attribute[1] as string, attribute[2] ?? attribute[3] ?? '']);
  }
  return { tag: { name: match[1] as string, attributes, selfClosing: match[3] === '/' }, length: match[0].length };
}

/**
 * The sanitised icon. Throws SvgRejected when the input is not a well-formed SVG document (a
 * root other than `<svg>`, unbalanced tags, undeclared entities in text): such an icon is refused.
 */
export function sanitizeSvg(input: string): string {
  let rest = input.replace(/^\uFEFF/, '');
  const out: string[] = [];
  /** Open elements: their names, and whether each was written (false: dropped or unwrapped). */
  const stack: { name: string; kept: boolean; unwrapped: boolean }[] = [];
  /** Depth at which a dropped subtree began; nothing below it is written. */
  let droppedAt: number | undefined;
  let sawRoot = false;
  let rootClosed = false;

  while (rest.length > 0) {
    if (rest.startsWith('<!--')) {
      const end = rest.indexOf('-->', 4);
      if (end < 0) throw new SvgRejected('unterminated comment');
      rest = rest.slice(end + 3);
      continue;
    }
    if (rest.startsWith('<?')) {
      const end = rest.indexOf('?>', 2);
      if (end < 0) throw new SvgRejected('unterminated processing instruction');
      rest = rest.slice(end + 2);
      continue;
    }
    if (rest.startsWith('<![CDATA[')) {
      const end = rest.indexOf(']]>', 9);
      if (end < 0) throw new SvgRejected('unterminated CDATA section');
      const text = rest.slice(9, end);
      rest = rest.slice(end + 3);
      if (droppedAt === undefined && stack.length > 0) {
        out.push(escapeText(text));
      }
      continue;
    }
    if (rest.startsWith('<!')) {
      // A DOCTYPE (with any internal subset: entity declarations are not honoured).
      if (sawRoot) throw new SvgRejected('declaration inside the document');
      const subset = /^<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>/i.exec(rest);
      if (!subset) throw new SvgRejected('malformed declaration');
      rest = rest.slice(subset[0].length);
      continue;
    }
    if (rest.startsWith('</')) {
      const match = END_TAG.exec(rest);
      const open = stack.pop();
      if (!match || !open || open.name !== match[1]) throw new SvgRejected('unbalanced tags');
      rest = rest.slice(match[0].length);
      if (open.kept) out.push(`</${open.name}>`);
      if (droppedAt !== undefined && stack.length < droppedAt) droppedAt = undefined;
      if (stack.length === 0) rootClosed = true;
      continue;
    }
    if (rest.startsWith('<')) {
      const parsed = parseStartTag(rest);
      if (!parsed) throw new SvgRejected('malformed tag');
      rest = rest.slice(parsed.length);
      const { tag } = parsed;
      if (rootClosed) throw new SvgRejected('content after the root element');
      if (!sawRoot) {
        if (tag.name !== 'svg') throw new SvgRejected('the root element is not <svg>');
        sawRoot = true;
      }
      const allowed =
        droppedAt === undefined &&
        ALLOWED_ELEMENTS.has(tag.name) &&
        // A style sheet that could fetch or run something is dropped whole, not trimmed.
        !(tag.name === 'style' && !tag.selfClosing && isUnsafeCss(styleSheetAhead(rest)));
      const unwrapped = droppedAt === undefined && UNWRAPPED_ELEMENTS.has(tag.name);
      if (allowed) out.push(writeStartTag(tag, stack.length === 0));
      if (!tag.selfClosing) {
        if (!allowed && !unwrapped && droppedAt === undefined) droppedAt = stack.length + 1;
        stack.push({ name: tag.name, kept: allowed, unwrapped });
      }
      if (tag.selfClosing && stack.length === 0) rootClosed = true;
      continue;
    }
    const next = rest.indexOf('<');
    const raw = next < 0 ? rest : rest.slice(0, next);
    rest = next < 0 ? '' : rest.slice(next);
    if (stack.length === 0) {
      if (raw.trim() !== '') throw new SvgRejected('text outside the root element');
      continue;
    }
    if (droppedAt !== undefined) continue;
    // An entity the document declared itself (an external one, a billion laughs) is left out.
    out.push(escapeText(decodeReferences(raw).text));
  }
  if (!sawRoot || stack.length > 0) throw new SvgRejected('unterminated document');
  return out.join('');
}

/** The text of a `<style>` element up to its end tag, CDATA markers removed, entities decoded. */
function styleSheetAhead(rest: string): string {
  const end = rest.search(/<\/style\s*>/);
  const raw = (end < 0 ? rest : rest.slice(0, end)).replace(/<!\[CDATA\[|\]\]>/g, '');
  // An entity could spell out what the checks look for; undecodable text is unsafe.
  return decodeEntities(raw) ?? '<';
}

function writeStartTag(tag: Tag, isRoot: boolean): string {
  const written = new Map<string, string>();
  for (const [name, raw] of tag.attributes) {
    if (!ALLOWED_ATTRIBUTES.has(name) || written.has(name)) continue;
    const decoded = decodeEntities(raw);
    if (decoded === undefined) continue;
    const value = safeAttributeValue(name, decoded);
    if (value !== undefined) written.set(name, value);
  }
  // The root names the SVG namespace, or a browser would not draw it as an image; and the xlink
  // one, or a kept xlink:href would make the document unreadable.
  if (isRoot) {
    written.set('xmlns', SVG_NAMESPACE);
    written.set('xmlns:xlink', XLINK_NAMESPACE);
  }
  const attributes = [...written].map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');
  return `<${tag.name}${attributes}${tag.selfClosing ? '/' : ''}>`;
}
