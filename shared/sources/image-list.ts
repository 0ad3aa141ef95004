import { isMap, isSeq } from 'yaml';
import { addEntry, type ParsedSourceFile, SOURCE_POLICY_KEYS, unreadableFile } from './source-entry';
import { mapEntries, parseLinedYaml, scalarText } from './yaml-lines';

/**
 * An image list (docs/sources.md "Image list"), YAML or JSON: a sequence, or a map with `images:`,
 * of references or of items `{image, name?, <dd.* key>: value…}`. Each item stands alone: one that
 * is wrong is a problem at its line, and the others are still watched.
 *
 * ```yaml
 * images:
 *   - nginx:1.27
 *   - image: ghcr.io/acme/api:2.1.0
 *     name: api
 *     dd.tag.include: ^\d+\.\d+\.\d+$
 * ```
 */
export function parseImageList(text: string, file: string): ParsedSourceFile {
  const document = parseLinedYaml(text);
  if (!document.ok) return unreadableFile(file, document);
  const parsed: ParsedSourceFile = { entries: [], problems: [] };
  const { root, lineOf } = document;
  const images = isMap(root) ? mapEntries(root).find((entry) => entry.key === 'images')?.value : root;
  if (root === null || root === undefined) return parsed; // an empty file lists nothing
  if (!isSeq(images)) {
    parsed.problems.push({
      file,
      line: lineOf(root),
      message: 'an image list is a sequence of images, or a map with an `images:` sequence',
    });
    parsed.failed = true;
    return parsed;
  }
  for (const item of images.items) readItem(item, file, lineOf, parsed);
  return parsed;
}

function readItem(item: unknown, file: string, lineOf: (node: unknown) => number, parsed: ParsedSourceFile): void {
  const line = lineOf(item);
  const plain = scalarText(item);
  if (plain !== undefined) {
    addEntry(parsed, {
      reference: plain.trim(),
      file,
      line,
      name: plain.trim(),
      key: `image:${plain.trim()}`,
      labels: {},
    });
    return;
  }
  if (!isMap(item)) {
    parsed.problems.push({ file, line, message: 'an item is an image reference or a map with `image:`' });
    return;
  }
  let reference: string | undefined;
  let name: string | undefined;
  const labels: Record<string, string> = {};
  for (const { key, keyNode, value } of mapEntries(item)) {
    const text = scalarText(value);
    if (text === undefined) {
      parsed.problems.push({ file, line: lineOf(keyNode), message: `${key} must be a string` });
      return;
    }
    if (key === 'image') reference = text.trim();
    else if (key === 'name') name = text;
    else if (SOURCE_POLICY_KEYS.has(key)) labels[key] = text;
    else {
      parsed.problems.push({
        file,
        line: lineOf(keyNode),
        message: `unknown key ${JSON.stringify(key)}: an item has image, name and dd.* policy keys (docs/sources.md)`,
      });
      return;
    }
  }
  if (reference === undefined) {
    parsed.problems.push({ file, line, message: 'an item without `image:`' });
    return;
  }
  addEntry(parsed, {
    reference,
    file,
    line,
    name: name ?? reference,
    key: name === undefined ? `image:${reference}` : `name:${name}`,
    labels,
  });
}
