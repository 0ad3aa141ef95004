import type { Container } from '../../../shared/schemas/container';
import type { ForgeHost, ReleaseNotesConfig } from './release-notes-config';

export type ReleaseForge = 'github' | 'gitlab';

/** Where a container's releases are published. */
export interface ReleaseSource {
  forge: ReleaseForge;
  /** The host of the repository as its URL names it (`github.com`, `gitlab.example.com:8443`). */
  host: string;
  /** `owner/repo`, or for GitLab `group/subgroup/project`. */
  repository: string;
  /** The repository's page. */
  url: string;
  /** Where the API is reached: `https://api.github.com`, `https://gitlab.example.com/api/v4`. */
  apiBase: string;
  /**
   * The configured Enterprise or self-hosted instance (`host[:port]`) it is on, whose own token is
   * the only one sent there; absent for github.com and gitlab.com.
   */
  instance?: string;
  /** Which label named it. */
  label: string;
}

/** Why a container has no source the hub can read releases from. */
export type SourceProblem = { status: 'no-source' | 'unsupported-source'; message: string };

/** The OCI annotation (and image label) naming the source repository; Docker copies image labels onto the container. */
export const OCI_SOURCE_LABEL = 'org.opencontainers.image.source';
/** A dockwatch label that wins over the image's: for images whose label is missing or wrong. */
export const SOURCE_LABEL = 'dd.source.repo';
const LINK_TEMPLATE_LABEL = 'dd.link.template';

const MAX_SOURCE_LENGTH = 512;

/** `git@github.com:owner/repo.git`, `git+https://…`, `github.com/owner/repo` → a URL. */
function asUrl(raw: string): URL | undefined {
  let text = raw.trim();
  if (text.length === 0 || text.length > MAX_SOURCE_LENGTH) return undefined;
  const scp = /^[\w.-]+@([\w.-]+):(.+)$/.exec(text);
  if (scp) text = `https://${scp[1]}/${scp[2]}`;
  text = text.replace(/^git\+/, '').replace(/^git:\/\//, 'https://');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `https://${text}`;
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url;
}

/** The repository path of a URL on a forge: two segments on GitHub, the path before `/-/` on GitLab. */
function repositoryPath(forge: ReleaseForge, url: URL): string | undefined {
  // Percent-escapes are left as they are: a repository name never has one, so such a path fails `valid`.
  const segments = url.pathname.split('/').filter(Boolean);
  const clean = (path: string[]) => path.map((segment) => segment.replace(/\.git$/, ''));
  const valid = (path: string[]) => path.every((segment) => /^[\w.-]+$/.test(segment) && !/^\.+$/.test(segment));
  if (forge === 'github') {
    const path = clean(segments.slice(0, 2));
    return path.length === 2 && valid(path) ? path.join('/') : undefined;
  }
  const end = segments.indexOf('-');
  const path = clean(end === -1 ? segments : segments.slice(0, end));
  return path.length >= 2 && path.length <= 20 && valid(path) ? path.join('/') : undefined;
}

interface Forge {
  forge: ReleaseForge;
  apiBase: string;
  /** Scheme and host of the repository pages. */
  webBase: string;
  instance?: string;
}

/**
 * The forge of a label's host: the two public ones, and those configured as Enterprise or
 * self-hosted. Only the host is read of the label: the scheme (and so the token's way there) is the
 * configuration's, so `http://` in a label never downgrades a request (issue 33, item 9).
 */
function forgeOf(url: URL, config: ReleaseNotesConfig): Forge | undefined {
  const host = url.host.toLowerCase();
  if (host === 'github.com' || host === 'www.github.com') {
    return { forge: 'github', apiBase: config.githubApiUrl, webBase: 'https://github.com' };
  }
  if (host === 'gitlab.com' || host === 'www.gitlab.com') {
    return { forge: 'gitlab', apiBase: config.gitlabApiUrl, webBase: 'https://gitlab.com' };
  }
  const github = config.githubHosts.find((configured) => configured.host === host);
  if (github) return onInstance('github', github, '/api/v3');
  const gitlab = config.gitlabHosts.find((configured) => configured.host === host);
  if (gitlab) return onInstance('gitlab', gitlab, '/api/v4');
  return undefined;
}

function onInstance(forge: ReleaseForge, instance: ForgeHost, apiPath: string): Forge {
  const webBase = `${instance.scheme}://${instance.host}`;
  return { forge, apiBase: `${webBase}${apiPath}`, webBase, instance: instance.host };
}

/**
 * The repository a container's release notes come from: `dd.source.repo`, else the image's
 * `org.opencontainers.image.source`, else the host and repository of a `dd.link.template` that points
 * at a forge. The first label present decides; one on a host the hub does not know is reported, not
 * passed over for a later one.
 */
export function releaseSourceOf(
  container: Pick<Container, 'labels'>,
  config: ReleaseNotesConfig,
): ReleaseSource | SourceProblem {
  for (const label of [SOURCE_LABEL, OCI_SOURCE_LABEL, LINK_TEMPLATE_LABEL]) {
    const raw = container.labels[label];
    if (raw === undefined || raw.trim() === '') continue;
    // A template's `${…}` parts sit in the path after the repository, which is all that is read of it.
    const url = asUrl(label === LINK_TEMPLATE_LABEL ? raw.replace(/\$\{[^}]*\}/g, 'x') : raw);
    const forge = url && forgeOf(url, config);
    if (label === LINK_TEMPLATE_LABEL && !forge) continue;
    if (!url || !forge) {
      return {
        status: 'unsupported-source',
        message: `The ${label} label does not name a repository on GitHub, GitLab or a configured host (DD_RELEASE_NOTES_GITHUB_HOSTS, DD_RELEASE_NOTES_GITLAB_HOSTS)`,
      };
    }
    const repository = repositoryPath(forge.forge, url);
    if (!repository) {
      return { status: 'unsupported-source', message: `The ${label} label names no repository path` };
    }
    return {
      forge: forge.forge,
      host: url.host.toLowerCase(),
      repository,
      url: `${forge.webBase}/${repository}`,
      apiBase: forge.apiBase.replace(/\/+$/, ''),
      ...(forge.instance && { instance: forge.instance }),
      label,
    };
  }
  return {
    status: 'no-source',
    message: `No ${OCI_SOURCE_LABEL} on the image and no ${SOURCE_LABEL} or ${LINK_TEMPLATE_LABEL} label on the container`,
  };
}
