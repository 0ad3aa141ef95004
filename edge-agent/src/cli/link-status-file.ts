import { readFile, rename, writeFile } from 'node:fs/promises';
import * as v from 'valibot';

/**
 * Whether the agent's link to the hub is up, in a small file beside its key (`<key>.link.json`,
 * where the update journal already lives): `--healthcheck` reads it from another process, the
 * container's HEALTHCHECK, which cannot ask the running agent anything else.
 */
export const LinkStatusSchema = v.object({
  state: v.picklist(['connected', 'disconnected']),
  /** When the state began, milliseconds since the epoch. */
  since: v.number(),
});
export type LinkStatus = v.InferOutput<typeof LinkStatusSchema>;

export const linkStatusFile = (keyFile: string) => `${keyFile}.link.json`;

/** Written whole and renamed: a probe never reads half a file. */
export async function writeLinkStatus(keyFile: string, status: LinkStatus): Promise<void> {
  const path = linkStatusFile(keyFile);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(status), { mode: 0o600 });
  await rename(temporary, path);
}

/** Undefined when the file is missing or is not a status this agent wrote. */
export async function readLinkStatus(keyFile: string): Promise<LinkStatus | undefined> {
  try {
    const parsed = v.safeParse(LinkStatusSchema, JSON.parse(await readFile(linkStatusFile(keyFile), 'utf8')));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}
