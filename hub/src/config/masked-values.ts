import { REDACTED } from '../../../shared/redact';
import { classifyVariable, isPlainVariable, showVariable } from './secret-variables';

/** A value a client could not send as it is: the variable, and why (config-file.ts's ConfigProblem). */
export interface MaskProblem {
  variable: string;
  message: string;
}

/**
 * Values sent back after a read (GET /api/v1/config, an editor's form), with every value still
 * shown as the read masked it (`***`, `https://host/***`) taken from what the file holds now.
 *
 * A masked secret follows its destination: when a URL, host or endpoint of its group changes, the
 * secret kept would be sent somewhere the person who set it never chose (issue 33 item 3), so the
 * mask is refused and the secret must be sent again. So is a mask with no value to keep, or a
 * secret that looks masked but is not what the file holds (`https://other-host/***`).
 */
export function restoreMasked(
  sent: ReadonlyMap<string, string>,
  current: ReadonlyMap<string, string>,
): { values: Map<string, string>; problems: MaskProblem[] } {
  const values = new Map<string, string>();
  const kept: string[] = [];
  const problems: MaskProblem[] = [];
  for (const [name, value] of sent) {
    const old = current.get(name);
    if (old !== undefined && value !== old && value === showVariable(name, old)) {
      values.set(name, old);
      if (!isPlainVariable(name)) kept.push(name);
      continue;
    }
    values.set(name, value);
    if (isPlainVariable(name) || !value.includes(REDACTED)) continue;
    problems.push({
      variable: name,
      message:
        old === undefined
          ? `is masked (${REDACTED}) but the file holds no value to keep`
          : `is masked (${REDACTED}) but does not match the value the file holds: send the whole value`,
    });
  }
  for (const name of kept) {
    const changed = changedDestination(name, values, current);
    if (changed)
      problems.push({
        variable: name,
        message: `is masked (${REDACTED}) but ${changed} changed: send the secret again for the new destination`,
      });
  }
  return { values, problems };
}

/** A destination variable of the secret's group whose value differs between the two, if any. */
function changedDestination(
  name: string,
  next: ReadonlyMap<string, string>,
  current: ReadonlyMap<string, string>,
): string | undefined {
  const group = classifyVariable(name)?.group;
  if (group === undefined) return undefined;
  // By the table's group, not by prefix: a named group need not be a prefix of its names.
  for (const other of [...new Set([...next.keys(), ...current.keys()])].sort()) {
    const rule = classifyVariable(other);
    if (rule?.destination && rule.group === group && next.get(other) !== current.get(other)) return other;
  }
  return undefined;
}
