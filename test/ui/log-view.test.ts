/** The log viewer's pure parts: ANSI escapes as classes (no inline style under the CSP) and JSON lines indented. */
import { describe, expect, it } from 'vitest';
import { parseAnsi, plainText } from '../../ui/src/log-view/ansi';
import { prettyJson } from '../../ui/src/log-view/json-line';

const ESC = '\u001b';

describe('parseAnsi', () => {
  it('maps SGR colours and styles to classes and drops the escapes', () => {
    expect(parseAnsi(`${ESC}[31merror${ESC}[0m plain ${ESC}[1;92mok${ESC}[22m!`)).toEqual([
      { text: 'error', classes: 'ansi-fg-1' },
      { text: ' plain ', classes: '' },
      { text: 'ok', classes: 'ansi-fg-10 ansi-bold' },
      { text: '!', classes: 'ansi-fg-10' },
    ]);
  });

  it('reads 256-colour indexes as the basic 16, skips 24-bit colours and removes cursor moves and titles', () => {
    expect(parseAnsi(`${ESC}[38;5;9mred${ESC}[38;2;1;2;3m still${ESC}[2K${ESC}]0;title\u0007 ${ESC}[44mbg`)).toEqual([
      { text: 'red still ', classes: 'ansi-fg-9' },
      { text: 'bg', classes: 'ansi-fg-9 ansi-bg-4' },
    ]);
    expect(plainText(`${ESC}[33mwarn${ESC}[m done`)).toBe('warn done');
  });

  it('leaves markup as text and an empty reset as a reset', () => {
    expect(parseAnsi(`${ESC}[35m<script>${ESC}[m`)).toEqual([{ text: '<script>', classes: 'ansi-fg-5' }]);
    expect(parseAnsi('no escapes')).toEqual([{ text: 'no escapes', classes: '' }]);
  });
});

describe('prettyJson', () => {
  it('indents an object or array line and leaves anything else alone', () => {
    expect(prettyJson(' {"level":"info","n":[1,2]} ')).toBe('{\n  "level": "info",\n  "n": [\n    1,\n    2\n  ]\n}');
    expect(prettyJson('[1]')).toBe('[\n  1\n]');
    expect(prettyJson('{not json}')).toBeUndefined();
    expect(prettyJson('plain text {"a":1}')).toBeUndefined();
    expect(prettyJson('42')).toBeUndefined();
  });
});
