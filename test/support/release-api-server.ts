import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A release as the fixture stores it; each forge renders it in its own JSON shape. */
export interface FixtureRelease {
  tag: string;
  name?: string;
  body?: string;
  date: string;
  draft?: boolean;
  prerelease?: boolean;
}

/** One request the fixture saw. */
export interface ReleaseApiRequest {
  forge: 'github' | 'gitlab';
  path: string;
  /** The credential header sent: GitHub's `Authorization`, GitLab's `PRIVATE-TOKEN`. */
  credential: string | undefined;
}

export interface ReleaseApiServer {
  /** `http://127.0.0.1:PORT`: GitHub's REST API at its root (`/repos/…`) and under `/api/v3` (Enterprise), GitLab's under `/api/v4`. */
  url: string;
  /** `127.0.0.1:PORT`, for DD_RELEASE_NOTES_*_HOSTS: a GitHub Enterprise or self-hosted GitLab at this address. */
  host: string;
  requests: ReleaseApiRequest[];
  /** A GitHub repository (`owner/repo`) with these releases, newest first as GitHub lists them. */
  github(repository: string, releases: FixtureRelease[]): void;
  /** A GitLab project (`group/sub/project`). */
  gitlab(project: string, releases: FixtureRelease[]): void;
  /** Requests each forge still allows before its limit is spent (default: unlimited); reset at `resetAt` (epoch s). */
  limit(forge: 'github' | 'gitlab', remaining: number, resetAt: number): void;
  /** A repository whose every request answers 500. */
  fail(forge: 'github' | 'gitlab', repository: string): void;
  /** A hostile answer at an exact path (`/repos/acme/x/releases`), whatever the query. */
  raw(path: string, answer: RawAnswer): void;
  close(): Promise<void>;
}

export interface RawAnswer {
  status?: number;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  /** Never answered (a hung forge). */
  stall?: boolean;
}

interface Budget {
  remaining: number;
  resetAt: number;
}

const LIMIT = 60;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** `per_page` and `page` as both forges read them: GitHub defaults to 30, GitLab to 20, both cap at 100. */
function paging(url: URL, defaultPerPage: number): { page: number; perPage: number } {
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page')) || defaultPerPage));
  const page = Math.max(1, Number(url.searchParams.get('page')) || 1);
  return { page, perPage };
}

/** RFC 8288 Link with the forge's rels, absolute URLs on this server. */
function linkHeader(url: URL, page: number, last: number): string {
  const at = (n: number) => {
    const target = new URL(url);
    target.searchParams.set('page', String(n));
    return target.href;
  };
  const links: string[] = [];
  if (page < last) links.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
  if (page > 1) links.push(`<${at(1)}>; rel="first"`, `<${at(page - 1)}>; rel="prev"`);
  return links.join(', ');
}

const githubRelease = (repository: string, release: FixtureRelease, id: number) => ({
  url: `https://api.github.com/repos/${repository}/releases/${id}`,
  html_url: `https://github.com/${repository}/releases/tag/${encodeURIComponent(release.tag)}`,
  id,
  tag_name: release.tag,
  target_commitish: 'main',
  name: release.name ?? null,
  draft: release.draft ?? false,
  prerelease: release.prerelease ?? false,
  created_at: release.date,
  published_at: release.draft ? null : release.date,
  body: release.body ?? null,
  author: { login: 'releaser', id: 1 },
  assets: [],
});

const gitlabRelease = (base: string, project: string, release: FixtureRelease) => ({
  name: release.name ?? release.tag,
  tag_name: release.tag,
  description: release.body ?? null,
  created_at: release.date,
  released_at: release.date,
  upcoming_release: false,
  author: { username: 'releaser', id: 1 },
  commit: { id: '0'.repeat(40) },
  assets: { count: 0, sources: [], links: [] },
  _links: { self: `${base}/${project}/-/releases/${encodeURIComponent(release.tag)}` },
});

/**
 * GitHub's and GitLab's release APIs on 127.0.0.1, as faithful as the hub needs them: pages with
 * `Link` (both) and `X-Next-Page`/`X-Total-Pages` (GitLab), GitHub's `X-RateLimit-*` headers and its
 * 403 once they are spent, GitLab's `RateLimit-*` and 429 with `Retry-After`, and each forge's 404 body
 * for a repository it does not have.
 */
export async function startReleaseApiServer(): Promise<ReleaseApiServer> {
  const githubRepos = new Map<string, FixtureRelease[]>();
  const gitlabProjects = new Map<string, FixtureRelease[]>();
  const failing = new Set<string>();
  const budgets: Record<'github' | 'gitlab', Budget> = {
    github: { remaining: Number.POSITIVE_INFINITY, resetAt: 0 },
    gitlab: { remaining: Number.POSITIVE_INFINITY, resetAt: 0 },
  };
  const requests: ReleaseApiRequest[] = [];
  const rawAnswers = new Map<string, RawAnswer>();
  const stalled = new Set<ServerResponse>();
  let base = '';

  const spend = (forge: 'github' | 'gitlab'): { spent: boolean; headers: Record<string, string> } => {
    const budget = budgets[forge];
    const spent = budget.remaining <= 0;
    if (!spent) budget.remaining--;
    const remaining = Number.isFinite(budget.remaining) ? String(budget.remaining) : String(LIMIT);
    const reset = String(budget.resetAt || Math.floor(Date.now() / 1000) + 3600);
    const headers =
      forge === 'github'
        ? {
            'x-ratelimit-limit': String(LIMIT),
            'x-ratelimit-remaining': remaining,
            'x-ratelimit-reset': reset,
            'x-ratelimit-used': String(LIMIT - Number(remaining)),
            'x-ratelimit-resource': 'core',
          }
        : { 'ratelimit-limit': String(LIMIT), 'ratelimit-remaining': remaining, 'ratelimit-reset': reset };
    return { spent, headers };
  };

  const serveGithub = (req: IncomingMessage, res: ServerResponse, url: URL, repository: string) => {
    requests.push({ forge: 'github', path: `${url.pathname}${url.search}`, credential: req.headers.authorization });
    const { spent, headers } = spend('github');
    if (spent) {
      json(
        res,
        403,
        {
          message: 'API rate limit exceeded for 127.0.0.1.',
          documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting',
        },
        headers,
      );
      return;
    }
    if (failing.has(`github ${repository}`)) return json(res, 500, { message: 'Server Error' }, headers);
    const releases = githubRepos.get(repository);
    if (!releases) {
      return json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }, headers);
    }
    const { page, perPage } = paging(url, 30);
    const last = Math.max(1, Math.ceil(releases.length / perPage));
    const slice = releases.slice((page - 1) * perPage, page * perPage);
    const link = linkHeader(url, page, last);
    json(
      res,
      200,
      slice.map((release, i) => githubRelease(repository, release, 1000 + (page - 1) * perPage + i)),
      { ...headers, ...(link && { link }) },
    );
  };

  const serveGitlab = (req: IncomingMessage, res: ServerResponse, url: URL, project: string) => {
    const token = req.headers['private-token'];
    requests.push({
      forge: 'gitlab',
      path: `${url.pathname}${url.search}`,
      credential: Array.isArray(token) ? token[0] : token,
    });
    const { spent, headers } = spend('gitlab');
    if (spent) {
      const retryAfter = String(Math.max(1, budgets.gitlab.resetAt - Math.floor(Date.now() / 1000)));
      res.writeHead(429, { ...headers, 'retry-after': retryAfter, 'content-type': 'text/plain' });
      res.end('Retry later\n');
      return;
    }
    if (failing.has(`gitlab ${project}`)) return json(res, 500, { message: '500 Internal Server Error' }, headers);
    const releases = gitlabProjects.get(project);
    if (!releases) return json(res, 404, { message: '404 Project Not Found' }, headers);
    const { page, perPage } = paging(url, 20);
    const totalPages = Math.max(1, Math.ceil(releases.length / perPage));
    const slice = releases.slice((page - 1) * perPage, page * perPage);
    const link = linkHeader(url, page, totalPages);
    json(
      res,
      200,
      slice.map((release) => gitlabRelease(base, project, release)),
      {
        ...headers,
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': page < totalPages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        'x-total': String(releases.length),
        'x-total-pages': String(totalPages),
        ...(link && { link }),
      },
    );
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const raw = rawAnswers.get(url.pathname);
    if (raw) {
      requests.push({ forge: 'github', path: `${url.pathname}${url.search}`, credential: req.headers.authorization });
      if (raw.stall) {
        stalled.add(res);
        return;
      }
      res.writeHead(raw.status ?? 200, { 'content-type': 'application/json', ...raw.headers });
      res.end(typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body));
      return;
    }
    // GitHub Enterprise serves the same API under /api/v3.
    const github = /^(?:\/api\/v3)?\/repos\/([^/]+)\/([^/]+)\/releases$/.exec(url.pathname);
    if (github) return serveGithub(req, res, url, `${github[1]}/${github[2]}`);
    // GitLab takes the project as one URL-encoded path segment (`group%2Fsub%2Fproject`).
    const gitlab = /^\/api\/v4\/projects\/([^/]+)\/releases$/.exec(url.pathname);
    if (gitlab) return serveGitlab(req, res, url, decodeURIComponent(gitlab[1] as string));
    json(res, 404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    host: `127.0.0.1:${port}`,
    requests,
    github: (repository, releases) => {
      githubRepos.set(repository, releases);
    },
    gitlab: (project, releases) => {
      gitlabProjects.set(project, releases);
    },
    limit: (forge, remaining, resetAt) => {
      budgets[forge] = { remaining, resetAt };
    },
    fail: (forge, repository) => {
      failing.add(`${forge} ${repository}`);
    },
    raw: (path, answer) => {
      rawAnswers.set(path, answer);
    },
    close: async () => {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
