import { isAlias, isMap, isScalar, type Node, type Pair, parseDocument, Scalar, type YAMLMap } from 'yaml';
import { sameImage } from './image-match';

/**
 * The outcome for one file's text: `absent` means this file does not set the service's image (the
 * multi-file rule goes on to an earlier file); `refused` means it may, but not in a form this
 * rewrite can change without guessing.
 */
export type ComposeTextRewrite =
  | { status: 'rewritten'; text: string }
  | { status: 'unchanged'; reason: string }
  | { status: 'absent'; reason: string }
  | { status: 'refused'; reason: string };

export interface ServiceImageChange {
  service: string;
  /** What the file must name now (compared normalised: `nginx` is `docker.io/library/nginx:latest`). */
  oldImage: string;
  newImage: string;
}

type Location =
  | { status: 'found'; start: number; end: number; value: string; type: Scalar['type'] }
  | { status: 'absent'; reason: string }
  | { status: 'refused'; reason: string };

const absent = (reason: string) => ({ status: 'absent' as const, reason });
const refused = (reason: string) => ({ status: 'refused' as const, reason });
const firstLine = (message: string) => message.split('\n')[0] ?? message;

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => isScalar(pair.key) && pair.key.value === key);
}

/** The mapping under `key`, or why there is none usable. */
function mapAt(parent: YAMLMap, key: string, what: string): YAMLMap | ReturnType<typeof absent | typeof refused> {
  const pair = pairOf(parent, key);
  if (!pair || pair.value === null || pair.value === undefined) return absent(`${what} not found`);
  if (isAlias(pair.value)) return refused(`${what} is an alias (*anchor); its image is defined elsewhere`);
  if (!isMap(pair.value)) return refused(`${what} is not a mapping`);
  return pair.value;
}

/** Where `services.<service>.image`'s scalar sits in the text, character offsets of its source (quotes included). */
function locate(text: string, service: string): Location {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const duplicate = doc.errors.find((error) => error.code === 'DUPLICATE_KEY');
  if (duplicate) return refused(`duplicate keys: ${firstLine(duplicate.message)}`);
  const [error] = doc.errors;
  if (error) return refused(`invalid YAML: ${firstLine(error.message)}`);
  const root = doc.contents;
  if (root === null) return absent('the file is empty');
  if (!isMap(root)) return refused('the file is not a mapping');
  const services = mapAt(root, 'services', 'services');
  if (!isMap(services)) return services;
  const entry = mapAt(services, service, `service "${service}"`);
  if (!isMap(entry)) return entry;
  const image = pairOf(entry, 'image');
  if (!image) {
    if (pairOf(entry, '<<')) return refused('the service merges keys (<<) and has no image: of its own');
    if (pairOf(entry, 'extends')) return refused('the service uses extends and has no image: of its own');
    return absent('the service has no image: key (a build-only service?)');
  }
  const node = image.value as Node | null;
  if (isAlias(node)) return refused('image: is an alias (*anchor)');
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return refused('image: is not a string');
  if (node.anchor) return refused(`image: carries an anchor (&${node.anchor}) that other values may reuse`);
  if (node.value.includes('$')) return refused(`image: uses interpolation (${node.value})`);
  if (node.type !== Scalar.PLAIN && node.type !== Scalar.QUOTE_SINGLE && node.type !== Scalar.QUOTE_DOUBLE) {
    return refused('image: is a block scalar');
  }
  const [start, end] = node.range;
  const source = text.slice(start, end);
  if (source.includes('\n') || source.includes('\r')) return refused('image: spans several lines');
  return { status: 'found', start, end, value: node.value, type: node.type };
}

const PLAIN_SAFE = /^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$/;

/** The new value in the quoting the file used; plain only where YAML reads it back unchanged. */
function encode(value: string, type: Scalar['type']): string {
  if (type === Scalar.QUOTE_SINGLE) return `'${value.replaceAll("'", "''")}'`;
  if (type === Scalar.PLAIN && PLAIN_SAFE.test(value)) return value;
  return JSON.stringify(value);
}

/**
 * Replaces only the scalar of `services.<service>.image`: every other character (comments, blank
 * lines, indentation, key order, the value's quoting) stays as it was.
 */
export function rewriteServiceImage(text: string, change: ServiceImageChange): ComposeTextRewrite {
  const found = locate(text, change.service);
  // A digest-only update leaves nothing to write, whatever form the value has (this file does set it).
  if (found.status !== 'absent' && sameImage(change.oldImage, change.newImage)) {
    return { status: 'unchanged', reason: 'the reference stays the same (a digest-only update)' };
  }
  if (found.status !== 'found') return found;
  if (sameImage(found.value, change.newImage))
    return { status: 'unchanged', reason: `the file already names ${change.newImage}` };
  if (!sameImage(found.value, change.oldImage))
    return refused(`image: names ${found.value}, not the container's image ${change.oldImage}`);
  const next = `${text.slice(0, found.start)}${encode(change.newImage, found.type)}${text.slice(found.end)}`;
  // A safety net: the result must read back with the new value at the same place.
  const check = locate(next, change.service);
  if (check.status !== 'found' || check.value !== change.newImage)
    return refused('the rewritten file did not read back as expected');
  return { status: 'rewritten', text: next };
}
