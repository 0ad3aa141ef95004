import * as v from 'valibot';
import { MAX_BODY_CHARS } from './forge-http';
import { type Release, releaseVersionOf } from './release-match';

/** A forge's release object in the words both forges share; each forge's file maps its own fields here. */
export interface ForgeRelease {
  tag: string;
  name: string | null | undefined;
  body: string | null | undefined;
  date: string | null;
  url: string | null | undefined;
  prerelease: boolean;
}

/** Only web links are served: a release URL is rendered as a link by clients. */
export function webUrl(value: string | null | undefined): string | null {
  if (!value || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

/**
 * Reads one page of a forge's release list: each entry checked against `schema` and mapped by
 * `toForgeRelease` (`undefined` leaves it out); an entry of another shape is skipped rather than
 * failing the list. A page that is not an array is not a release list (`undefined`).
 */
export function releasePageReader<const S extends v.GenericSchema>(
  schema: S,
  toForgeRelease: (entry: v.InferOutput<S>) => ForgeRelease | undefined,
): (page: unknown) => Release[] | undefined {
  return (page) => {
    if (!Array.isArray(page)) return undefined;
    const releases: Release[] = [];
    for (const item of page) {
      const parsed = v.safeParse(schema, item);
      const release = parsed.success ? toForgeRelease(parsed.output) : undefined;
      if (release === undefined) continue;
      releases.push({
        tag: release.tag,
        version: releaseVersionOf(release.tag),
        title: (release.name || release.tag).slice(0, 1000),
        date: release.date,
        body: (release.body ?? '').slice(0, MAX_BODY_CHARS),
        url: webUrl(release.url),
        prerelease: release.prerelease,
      });
    }
    return releases;
  };
}
