import { OVERRIDABLE_LABELS } from '../containers/overridable-labels';
import { errorMessage } from '../error-message';
import { parseImageReference } from '../registry/image-reference';

/**
 * One image reference a file names (docs/sources.md): an image list's item, a Dockerfile's `FROM`,
 * a compose service's `image:`. It is watched like a container's image, but nothing runs it.
 */
export interface SourceEntry {
  /** The reference as written, variables resolved: `nginx:1.27`, `ghcr.io/o/app:2.1.0@sha256:…`. */
  reference: string;
  /** The file, relative to the source's directory (an image list: its own name). */
  file: string;
  /** 1-based line of the reference in that file. */
  line: number;
  /** A name for it: the item's `name` (else its reference), the compose service, the Dockerfile and its stage. */
  name: string;
  /**
   * What the entry is within its file, so that its identity outlives lines moving around it: a
   * compose service, a Dockerfile's nth FROM, an image list item's name or reference.
   */
  key: string;
  /** The `dd.*` policy keys that apply to it (an image list item's, a compose service's labels). */
  labels: Record<string, string>;
}

/** Something a file got wrong: shown on the source, never fatal, never losing another file's entries. */
export interface SourceProblem {
  file: string;
  /** 1-based; absent when the whole file is the problem (unreadable, not YAML). */
  line?: number;
  message: string;
}

export interface ParsedSourceFile {
  entries: SourceEntry[];
  problems: SourceProblem[];
  /** The file could not be read as a whole (a syntax error): its last good entries are kept meanwhile. */
  failed?: true;
}

/** A file that is not YAML as a whole: its syntax error is its one problem, at its line when known. */
export function unreadableFile(file: string, error: { line?: number; message: string }): ParsedSourceFile {
  return {
    entries: [],
    problems: [{ file, ...(error.line !== undefined && { line: error.line }), message: error.message }],
    failed: true,
  };
}

/** The dd.* keys a file may give an image: the overridable labels (hooks stay container labels: they run commands). */
export const SOURCE_POLICY_KEYS: ReadonlySet<string> = new Set(OVERRIDABLE_LABELS);

/** A reference a registry lookup can be made for, or why not (an unresolved `${VAR}`, a malformed tag). */
export function referenceProblem(reference: string): string | undefined {
  if (/\$\{?[A-Za-z_]/.test(reference))
    return `image reference ${JSON.stringify(reference)} has an unresolved variable`;
  try {
    parseImageReference(reference);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** Pushes the entry, or a problem at its line when its reference cannot be looked up. */
export function addEntry(parsed: ParsedSourceFile, entry: SourceEntry): void {
  const problem = referenceProblem(entry.reference);
  if (problem) parsed.problems.push({ file: entry.file, line: entry.line, message: problem });
  else parsed.entries.push(entry);
}
