import type { Page } from 'playwright-core';

/**
 * Every place in a table where a line ends between two letters of one word ("Delet|e",
 * "succeede|d", "Packa|ge"), as `word (element)` lines; empty when none. Measured, not inferred from
 * styles: each character's box is read through a Range, and a character on a lower line than the
 * letter before it, with no space between them, is a word broken mid-word. Identifiers (`.mono`,
 * `code`: digests, image references, ids) may break anywhere by design and are left out; a break
 * after a hyphen or a slash is a normal line break, not a broken word. Against the stylesheet before
 * issue 28 it found "Chan|ge", "succes|s" and "Attempt|s" at 1440 px.
 */
export function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const letter = /\p{L}/u;
    for (const table of document.querySelectorAll('table')) {
      if (table.getClientRects().length === 0) continue;
      const walker = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        const element = node.parentElement;
        if (!element || element.closest('.mono, code, .visually-hidden')) continue;
        // A header clipped to one pixel for screen readers (the phone layout) is not seen.
        if (element.closest('thead') && (element.closest('thead')?.getBoundingClientRect().width ?? 0) <= 2) continue;
        const text = node.data;
        let previousTop: number | undefined;
        for (let i = 0; i < text.length; i++) {
          const char = text[i] as string;
          if (/\s/.test(char)) {
            previousTop = undefined;
            continue;
          }
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const box = range.getClientRects()[0];
          if (!box || box.width === 0) continue;
          const before = text[i - 1] ?? '';
          if (previousTop !== undefined && box.top > previousTop + 2 && letter.test(before) && letter.test(char)) {
            const start = text.slice(0, i).search(/\S+$/);
            const end = text.slice(i).search(/\s|$/);
            found.push(
              `${text.slice(start, i)}|${text.slice(i, i + end)} (${element.tagName.toLowerCase()} in ${element.closest('td, th')?.getAttribute('data-label') ?? 'a header'})`,
            );
          }
          previousTop = box.top;
        }
      }
    }
    return found;
  });
}
