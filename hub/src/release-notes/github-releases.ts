import * as v from 'valibot';
import { type ForgeOutcome, type ForgeRequestOptions, nextLink, PER_PAGE, walkPages } from './forge-http';
import { type ForgeRelease, releasePageReader } from './forge-releases';

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

// Drafts are not published.
const toReleases = releasePageReader(GithubReleaseSchema, (release): ForgeRelease | undefined =>
  release.draft === true
    ? undefined
    : {
        tag: release.tag_name,
        name: release.name,
        body: release.body,
        date: release.published_at ?? release.created_at ?? null,
        url: release.html_url,
        prerelease: release.prerelease === true,
      },
);

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
