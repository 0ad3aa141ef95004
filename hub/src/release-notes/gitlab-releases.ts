import * as v from 'valibot';
import { type ForgeOutcome, type ForgeRequestOptions, nextLink, PER_PAGE, walkPages } from './forge-http';
import { releasePageReader } from './forge-releases';

/** The fields read of GitLab's release object (REST `GET /projects/:id/releases`). */
const GitlabReleaseSchema = v.object({
  tag_name: v.string(),
  name: v.nullish(v.string()),
  description: v.nullish(v.string()),
  released_at: v.nullish(v.string()),
  created_at: v.nullish(v.string()),
  upcoming_release: v.optional(v.boolean()),
  _links: v.optional(v.object({ self: v.optional(v.string()) })),
});

const toReleases = releasePageReader(GitlabReleaseSchema, (release) => ({
  tag: release.tag_name,
  name: release.name,
  body: release.description,
  date: release.released_at ?? release.created_at ?? null,
  url: release._links?.self,
  // GitLab has no prerelease flag; an upcoming release (dated in the future) is the nearest thing.
  prerelease: release.upcoming_release === true,
}));

/** The next page: `X-Next-Page` (a number, empty on the last page), else `Link: rel="next"`. */
function nextPage(response: Response, url: string): string | undefined {
  const page = response.headers.get('x-next-page');
  if (page !== null && /^\d{1,6}$/.test(page.trim())) {
    const next = new URL(url);
    next.searchParams.set('page', page.trim());
    return next.href;
  }
  return page === null ? nextLink(response.headers.get('link')) : undefined;
}

/** Every release of a GitLab project (gitlab.com or self-hosted), newest first. */
export function fetchGitlabReleases(
  apiBase: string,
  repository: string,
  token: string | undefined,
  options: Omit<ForgeRequestOptions, 'headers'>,
): Promise<ForgeOutcome> {
  return walkPages(
    `${apiBase}/projects/${encodeURIComponent(repository)}/releases?per_page=${PER_PAGE}`,
    {
      ...options,
      headers: { accept: 'application/json', ...(token !== undefined && { 'private-token': token }) },
    },
    toReleases,
    nextPage,
  );
}
