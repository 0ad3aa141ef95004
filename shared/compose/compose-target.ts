import { errorMessage } from '../error-message';
import type { ComposeFileEditor, ComposeImageChange, ComposeRewriteOutcome } from './compose-editor';

/** The labels docker compose sets on a service's containers, and this hub's own. */
export const COMPOSE_LABELS = {
  project: 'com.docker.compose.project',
  service: 'com.docker.compose.service',
  configFiles: 'com.docker.compose.project.config_files',
  workingDir: 'com.docker.compose.project.working_dir',
  /** A compose file's path: overrides config_files (a project started from elsewhere, or by another tool). */
  file: 'dd.compose.file',
  /** `false`: leave the container's compose file alone. */
  rewrite: 'dd.compose.rewrite',
} as const;

export type ComposeTarget = { files: string[]; service: string } | { skipped: ComposeRewriteOutcome };

function resolvePath(path: string, workingDir: string | undefined): string {
  if (path.startsWith('/') || !workingDir?.startsWith('/')) return path;
  return `${workingDir.replace(/\/+$/, '')}/${path.replace(/^\.\//, '')}`;
}

/**
 * The compose files and service a container comes from, by its labels; undefined when none names
 * a file (not a compose container, or one whose compose version did not record its files).
 */
export function composeTargetOf(labels: Readonly<Record<string, string>>): ComposeTarget | undefined {
  const workingDir = labels[COMPOSE_LABELS.workingDir];
  const own = labels[COMPOSE_LABELS.file]?.trim();
  const files = (own ? [own] : (labels[COMPOSE_LABELS.configFiles] ?? '').split(','))
    .map((path) => path.trim())
    .filter((path) => path !== '')
    .map((path) => resolvePath(path, workingDir));
  const path = files.at(-1);
  if (path === undefined) return undefined;
  if (labels[COMPOSE_LABELS.rewrite]?.trim().toLowerCase() === 'false') {
    return { skipped: { path, status: 'skipped', reason: `${COMPOSE_LABELS.rewrite}=false` } };
  }
  const service = labels[COMPOSE_LABELS.service]?.trim();
  if (!service)
    return { skipped: { path, status: 'skipped', reason: `no ${COMPOSE_LABELS.service} label names the service` } };
  return { files, service };
}

const MAX_REASON = 300;

/**
 * The engine's step after a success: the container's compose file brought to the new image, when
 * a runtime provides an editor and the labels name a file. Never rejects, so the update stands
 * whatever happens to the file.
 */
export async function updateComposeFile(
  editor: ComposeFileEditor | undefined,
  input: { labels: Readonly<Record<string, string>> | undefined } & Omit<ComposeImageChange, 'files' | 'service'>,
): Promise<ComposeRewriteOutcome | undefined> {
  if (!editor || !input.labels) return undefined;
  const target = composeTargetOf(input.labels);
  if (!target) return undefined;
  if ('skipped' in target) return target.skipped;
  const { labels: _labels, ...change } = input;
  let outcome: ComposeRewriteOutcome;
  try {
    outcome = await editor.setServiceImage({ ...change, files: target.files, service: target.service });
  } catch (error) {
    outcome = {
      path: target.files.at(-1) as string,
      status: 'skipped',
      reason: errorMessage(error),
    };
  }
  return outcome.reason && outcome.reason.length > MAX_REASON
    ? { ...outcome, reason: `${outcome.reason.slice(0, MAX_REASON)}…` }
    : outcome;
}
