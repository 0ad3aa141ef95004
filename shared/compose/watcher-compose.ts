import { composeFilesAreLocal, type WatcherConfig } from '../docker/watcher-config';
import type { ComposeFileEditor } from './compose-editor';

/**
 * The editor a watcher's updates get: none of a remote Docker's compose files live here, and a file
 * at the same path on this machine belongs to another stack (hosts often share a layout such as
 * /opt/stacks/app/compose.yml), so those updates answer `skipped` instead of touching it.
 */
export function composeEditorForWatcher(
  editor: ComposeFileEditor | undefined,
  watcher: Pick<WatcherConfig, 'name' | 'composeFiles' | 'endpoint'> | undefined,
): ComposeFileEditor | undefined {
  if (!editor || !watcher || composeFilesAreLocal(watcher)) return editor;
  const variable = `DD_WATCHER_${watcher.name.toUpperCase().replace(/-/g, '_')}_COMPOSEFILES`;
  return {
    setServiceImage: async (change) => ({
      path: change.files.at(-1) ?? '',
      status: 'skipped',
      reason: `the watcher ${watcher.name} reaches Docker over TCP: its compose files are not on this machine (${variable}=true if they are, at the same paths)`,
    }),
  };
}
