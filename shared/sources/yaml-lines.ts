import { isMap, isPair, isScalar, LineCounter, type Node, parseDocument, type YAMLMap } from 'yaml';

/** A YAML (or JSON) document with the line of each node, or the first syntax error with its line. */
export type LinedDocument =
  | { ok: true; root: unknown; lineOf: (node: unknown) => number }
  | { ok: false; line?: number; message: string };

export function parseLinedYaml(text: string): LinedDocument {
  const lineCounter = new LineCounter();
  // uniqueKeys: a key given twice is an error in compose and in an image list alike.
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const error = document.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
    return { ok: false, line, message: `YAML syntax error: ${error.message.split('\n')[0]}` };
  }
  const lineOf = (node: unknown) => {
    const range = (node as Node | undefined)?.range;
    return range ? lineCounter.linePos(range[0]).line : 1;
  };
  return { ok: true, root: document.contents, lineOf };
}

/** The map's pairs with string keys, each key's node kept for its line. */
export function mapEntries(map: YAMLMap): { key: string; keyNode: unknown; value: unknown }[] {
  return map.items.flatMap((pair) =>
    isPair(pair) && isScalar(pair.key) ? [{ key: String(pair.key.value), keyNode: pair.key, value: pair.value }] : [],
  );
}

/** A scalar's text (numbers and booleans as written), undefined for anything else. */
export function scalarText(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  const value = node.value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(node.source ?? value);
  return undefined;
}

export { isMap };
