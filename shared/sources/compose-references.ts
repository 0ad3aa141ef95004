import { isMap, isSeq } from 'yaml';
import { expandArgs } from './dockerfile-references';
import { addEntry, type ParsedSourceFile, SOURCE_POLICY_KEYS, unreadableFile } from './source-entry';
import { mapEntries, parseLinedYaml, scalarText } from './yaml-lines';

const NO_VARIABLES: ReadonlyMap<string, string> = new Map();

/** A service's `dd.*` policy labels, from `labels:` as a map or as a list of `key=value`. */
function policyLabels(labels: unknown): Record<string, string> {
  const found: Record<string, string> = {};
  const keep = (key: string, value: string) => {
    if (SOURCE_POLICY_KEYS.has(key)) found[key] = value;
  };
  if (isMap(labels)) for (const { key, value } of mapEntries(labels)) keep(key, scalarText(value) ?? '');
  if (isSeq(labels))
    for (const item of labels.items) {
      const text = scalarText(item) ?? '';
      const eq = text.indexOf('=');
      if (eq > 0) keep(text.slice(0, eq), text.slice(eq + 1));
    }
  return found;
}

/**
 * Every service `image:` of a compose file (docs/sources.md "Compose files"), with the service's
 * `dd.*` labels. `${VAR:-default}` takes its default (the file is read without the shell that would
 * run it); a variable without one is a problem at its line. A service with only `build:` has none.
 */
export function parseComposeFile(text: string, file: string): ParsedSourceFile {
  const document = parseLinedYaml(text);
  if (!document.ok) return unreadableFile(file, document);
  const parsed: ParsedSourceFile = { entries: [], problems: [] };
  const { root, lineOf } = document;
  if (root === null || root === undefined) return parsed;
  const services = isMap(root) ? mapEntries(root).find((entry) => entry.key === 'services') : undefined;
  if (!services || !isMap(services.value)) {
    parsed.problems.push({ file, line: lineOf(root), message: 'a compose file has a `services:` map' });
    parsed.failed = true;
    return parsed;
  }
  for (const service of mapEntries(services.value)) {
    if (!isMap(service.value)) continue;
    const fields = mapEntries(service.value);
    const image = fields.find((field) => field.key === 'image');
    if (!image) continue;
    const line = lineOf(image.value);
    const written = scalarText(image.value);
    const reference = written === undefined ? undefined : expandArgs(written.trim(), NO_VARIABLES);
    if (reference === undefined) {
      parsed.problems.push({
        file,
        line,
        message:
          written === undefined
            ? `service ${service.key}: image must be a string`
            : `service ${service.key}: image ${written} uses a variable without a default (\${NAME:-default})`,
      });
      continue;
    }
    const labels = policyLabels(fields.find((field) => field.key === 'labels')?.value);
    addEntry(parsed, {
      reference,
      file,
      line,
      name: `${service.key} (${file})`,
      key: `service:${service.key}`,
      labels,
    });
  }
  return parsed;
}

/** Which parser reads a file of a directory source, by its name; undefined for files it does not read. */
export function sourceFileKind(basename: string): 'dockerfile' | 'compose' | undefined {
  if (/^(docker-)?compose([.-][^/]*)?\.ya?ml$/i.test(basename)) return 'compose';
  if (/\.dockerignore$/i.test(basename)) return undefined;
  if (/^(Dockerfile|Containerfile)([.-][^/]*)?$/i.test(basename) || /\.(dockerfile|containerfile)$/i.test(basename))
    return 'dockerfile';
  return undefined;
}
