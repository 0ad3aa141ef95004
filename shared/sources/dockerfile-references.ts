import { addEntry, type ParsedSourceFile } from './source-entry';

/** One instruction with its continuation lines joined, and the line it starts on. */
interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** `# escape=` parser directive: the line continuation character (backslash unless it says backtick). */
function escapeCharacter(lines: readonly string[]): string {
  for (const line of lines) {
    const directive = /^#\s*([a-z]+)\s*=\s*(\S+)\s*$/i.exec(line.trim());
    if (!directive) break; // directives come first, before any comment or instruction
    if (directive[1]?.toLowerCase() === 'escape' && directive[2] === '`') return '`';
  }
  return '\\';
}

/** Instructions of a Dockerfile: comments and blank lines dropped, continuations joined, heredoc bodies skipped. */
export function dockerfileInstructions(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  const continuation = escapeCharacter(lines);
  const instructions: Instruction[] = [];
  let current: Instruction | undefined;
  let heredoc: string | undefined;
  for (const [index, raw] of lines.entries()) {
    if (heredoc !== undefined) {
      if (raw.replace(/^\t+/, '') === heredoc) heredoc = undefined;
      continue;
    }
    const trimmed = raw.trim();
    if (trimmed.startsWith('#') || (trimmed === '' && !current)) continue;
    let body = trimmed;
    const continues = body.endsWith(continuation);
    if (continues) body = body.slice(0, -1);
    if (current) current.args += ` ${body}`;
    else {
      const match = /^(\S+)\s*(.*)$/.exec(body);
      if (!match) continue;
      current = { keyword: (match[1] as string).toUpperCase(), args: match[2] as string, line: index + 1 };
    }
    if (continues) continue;
    const marker = /<<-?\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?/.exec(current.args);
    if (marker && current.keyword !== 'FROM') heredoc = marker[1];
    instructions.push(current);
    current = undefined;
  }
  if (current) instructions.push(current);
  return instructions;
}

const unquote = (value: string) => value.replace(/^(["'])(.*)\1$/, '$2');

/**
 * `$NAME`, `${NAME}`, `${NAME:-default}` and `${NAME:+alternative}` (colon optional) from the build arguments;
 * undefined when one is not known (the build would need a --build-arg the file does not give).
 */
export function expandArgs(value: string, args: ReadonlyMap<string, string>): string | undefined {
  let unresolved = false;
  const expanded = value.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (
      _match,
      braced: string | undefined,
      operator: string | undefined,
      word: string | undefined,
      bare: string | undefined,
    ) => {
      const name = (braced ?? bare) as string;
      const known = args.get(name);
      if (operator === '-') return known === undefined || known === '' ? (word ?? '') : known;
      if (operator === '+') return known === undefined || known === '' ? '' : (word ?? '');
      if (known === undefined) unresolved = true;
      return known ?? '';
    },
  );
  return unresolved ? undefined : expanded;
}

/**
 * Every `FROM` of a Dockerfile that names an image (docs/sources.md "Dockerfiles"): multi-stage
 * builds give one entry per stage from a registry; `scratch` and earlier stages are skipped; the
 * `ARG`s before the first `FROM` are resolved from their defaults. A `FROM` whose image needs a
 * build argument without a default is a problem at its line.
 */
export function parseDockerfile(text: string, file: string): ParsedSourceFile {
  const parsed: ParsedSourceFile = { entries: [], problems: [] };
  const args = new Map<string, string>();
  const stages = new Set<string>();
  let seenFrom = false;
  let fromIndex = 0;
  for (const instruction of dockerfileInstructions(text)) {
    if (instruction.keyword === 'ARG' && !seenFrom) {
      for (const declaration of instruction.args.split(/\s+/).filter(Boolean)) {
        const eq = declaration.indexOf('=');
        if (eq === -1) continue; // declared without a default: known only from --build-arg
        const expanded = expandArgs(unquote(declaration.slice(eq + 1)), args);
        if (expanded !== undefined) args.set(declaration.slice(0, eq), expanded);
      }
      continue;
    }
    if (instruction.keyword !== 'FROM') continue;
    seenFrom = true;
    fromIndex += 1;
    const words = instruction.args.split(/\s+/).filter((word) => word !== '' && !word.startsWith('--'));
    const [image, as, stage] = words;
    if (!image) {
      parsed.problems.push({ file, line: instruction.line, message: 'FROM without an image' });
      continue;
    }
    const stageName = as?.toLowerCase() === 'as' && stage ? stage.toLowerCase() : undefined;
    const reference = expandArgs(image, args);
    if (stageName) stages.add(stageName);
    if (reference === undefined) {
      parsed.problems.push({
        file,
        line: instruction.line,
        message: `FROM ${image}: a build argument it uses has no default (give it one with ARG NAME=value before the first FROM)`,
      });
      continue;
    }
    const lowered = reference.toLowerCase();
    if (lowered === 'scratch' || (stages.has(lowered) && lowered !== stageName)) continue;
    addEntry(parsed, {
      reference,
      file,
      line: instruction.line,
      name: stageName ? `${file} (${stageName})` : file,
      key: `from:${fromIndex}`,
      labels: {},
    });
  }
  return parsed;
}
