import { errorMessage } from '../error-message';
import type { ComposeImageChange } from './compose-editor';
import type { ComposeTextRewrite } from './compose-rewrite';

export type ProjectRewrite =
  | { path: string; rewrite: ComposeTextRewrite; text?: string }
  | { path: string; error: string };

/**
 * Compose merges the files in order, so the last file that sets `services.<service>.image` decides
 * it: that is the one to rewrite. Files are read from the last; one that cannot be read or parsed
 * stops the search (it might set the image), so nothing is rewritten on a guess.
 */
export async function rewriteProject(
  change: ComposeImageChange,
  read: (path: string) => Promise<string>,
): Promise<ProjectRewrite> {
  // The YAML parser is imported with the first compose update, not by every hub and agent at start
  // (docs/benchmarks.md "Footprint"); Workers bundles inline it.
  const { rewriteServiceImage } = await import('./compose-rewrite');
  let last: ProjectRewrite | undefined;
  for (const path of [...change.files].reverse()) {
    let text: string;
    try {
      text = await read(path);
    } catch (error) {
      return { path, error: errorMessage(error) };
    }
    const rewrite = rewriteServiceImage(text, change);
    if (rewrite.status !== 'absent') return { path, rewrite, text };
    last = { path, rewrite };
  }
  if (!last) return { path: '', error: 'no compose file given' };
  return last;
}
