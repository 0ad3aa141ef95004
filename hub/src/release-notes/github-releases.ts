import * as v from 'valibot';
import {
  type ForgeOutcome,
  type ForgeRequestOptions,
  MAX_BODY_CHARS,
  nextLink,
  PER_PAGE,
  walkPages,
} from './forge-http';
import { type Release, releaseVersionOf } from './release-match';

/** The fields read of GitHub's release object (REST `GET /repos/{owner}/{repo}/releases`). */
const GithubReleaseSchema = v.object({
  tag_name: v.string(),
  name: v.nullish(v.string()),
  body: v.nullish(v.string()),
  html_url: v.nullish(v.string()),
  draft: v.optional(v.boolean()),
  prerelease: v.optional(v.boolean()),
  published_at: v.nullish(v.string()),
  created_at: v.nullish(v.string()),
});

/** Only web links are served: a release URL is rendered as a link by clients. */
export function webUrl(value: string | null | undefined): string | null {
  if (!value || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

function toReleases(page: unknown): Release[] | undefined {
  if (!Array.isArray(page)) return undefined;
  const releases: Release[] = [];
  for (const item of page) {
    const parsed = v.safeParse(GithubReleaseSchema, item);
    // Drafts are not published; an entry of another shape is skipped rather than failing the list.
    if (!parsed.success || parsed.output.draft === true) continue;
    const release = parsed.output;
    releases.push({
      tag: release.tag_name,
      version: releaseVersionOf(release.tag_name),
      title: (release.name || release.tag_name).slice(0, 1000),
      date: release.published_at ?? release.created_at ?? null,
      body: (release.body ?? '').slice(0, MAX_BODY_CHARS),
      url: webUrl(release.html_url),
      prerelease: release.prerelease === true,
    });
  }
  return releases;
}

/** Every published release of a GitHub (or GitHub Enterprise) repository, newest first, following `Link: rel="next"`. */
export function fetchGithubReleases(
  apiBase: string,
  repository: string,
  token: string | undefined,
  options: Omit<ForgeRequestOptions, 'headers'>,
): Promise<ForgeOutcome> {
  const [owner, repo] = repository.split('/').map(encodeURIComponent);
  return walkPages(
    `${apiBase}/repos/${owner}/${repo}/releases?per_page=${PER_PAGE}`,
    {
      ...options,
      headers: {
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        // GitHub refuses requests without one; not every runtime's fetch sends it.
        'user-agent': 'dockwatch',
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
      },
    },
    toReleases,
    (response) => nextLink(response.headers.get('link')),
  );
}
