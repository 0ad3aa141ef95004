/** A run of log text and the classes its ANSI styling maps to (`ansi-fg-1`, `ansi-bold`, …). */
export interface AnsiSegment {
  text: string;
  classes: string;
}

interface Style {
  fg?: number | undefined;
  bg?: number | undefined;
  bold?: boolean | undefined;
  italic?: boolean | undefined;
  underline?: boolean | undefined;
}

// CSI sequences: SGR (`m`) is read, every other one (cursor moves, erasing) is dropped.
const CSI = /\u001b\[([0-9;?]*)[ -/]*([@-~])/g;
// The other escapes (OSC titles and links, a lone ESC) are dropped.
const OTHER_ESCAPES = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?/g;

/** A 256-colour index as one of the 16 the stylesheet has (its first 16 are those; the rest are approximated). */
function basicOf(index: number): number | undefined {
  if (index < 16) return index;
  if (index >= 232) return index < 244 ? 8 : 7;
  const cube = index - 16;
  const [r, g, b] = [Math.floor(cube / 36), Math.floor(cube / 6) % 6, cube % 6];
  const bright = Math.max(r, g, b) > 3 ? 8 : 0;
  return ((r > 1 ? 1 : 0) | (g > 1 ? 2 : 0) | (b > 1 ? 4 : 0)) + bright;
}

/** SGR parameters applied to a style; 24-bit colours have no class and leave the colour as it was. */
function applySgr(style: Style, params: number[]): Style {
  const next = { ...style };
  for (let i = 0; i < params.length; i++) {
    const code = params[i] ?? 0;
    if (code === 0) {
      for (const key of Object.keys(next)) delete next[key as keyof Style];
    } else if (code === 1) next.bold = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 22) next.bold = undefined;
    else if (code === 23) next.italic = undefined;
    else if (code === 24) next.underline = undefined;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code === 39) next.fg = undefined;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
    else if (code === 49) next.bg = undefined;
    else if (code === 38 || code === 48) {
      const mode = params[i + 1];
      const colour = mode === 5 ? basicOf(params[i + 2] ?? 0) : undefined;
      if (colour !== undefined) next[code === 38 ? 'fg' : 'bg'] = colour;
      i += mode === 5 ? 2 : mode === 2 ? 4 : 1;
    }
  }
  return next;
}

function classesOf(style: Style): string {
  const classes: string[] = [];
  if (style.fg !== undefined) classes.push(`ansi-fg-${style.fg}`);
  if (style.bg !== undefined) classes.push(`ansi-bg-${style.bg}`);
  if (style.bold) classes.push('ansi-bold');
  if (style.italic) classes.push('ansi-italic');
  if (style.underline) classes.push('ansi-underline');
  return classes.join(' ');
}

/**
 * A log line with ANSI escapes as styled runs. Colours become classes, never inline styles (the
 * page's CSP refuses those), and every other escape is removed, so the text is what a terminal shows.
 */
export function parseAnsi(line: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  let style: Style = {};
  let last = 0;
  const push = (text: string) => {
    const cleaned = text.replace(OTHER_ESCAPES, '');
    if (!cleaned) return;
    const classes = classesOf(style);
    const previous = segments.at(-1);
    if (previous && previous.classes === classes) previous.text += cleaned;
    else segments.push({ text: cleaned, classes });
  };
  for (const match of line.matchAll(CSI)) {
    push(line.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm')
      style = applySgr(
        style,
        (match[1] || '0').split(';').map((p) => Number(p) || 0),
      );
  }
  push(line.slice(last));
  return segments;
}

/** The text a person reads: escapes removed (for search and for JSON). */
export function plainText(line: string): string {
  return parseAnsi(line)
    .map((segment) => segment.text)
    .join('');
}
