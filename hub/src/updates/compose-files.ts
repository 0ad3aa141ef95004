import { type ComposeFileEditor, composeEditorForWatcher } from '../../../shared/compose';
import { triggerById, type UpdateContext } from './update-context';

/**
 * The compose file editor the engine gets for a local watcher's containers: the runtime's
 * (`HubDeps.composeFiles`, Node only; none on Workers, where compose files are left alone), with
 * the trigger's `COMPOSE=false` honoured, and skipping a watcher whose files are on another machine.
 */
export function composeFilesFor(context: UpdateContext, watcherName: string): ComposeFileEditor | undefined {
  const hub = context.hub;
  const watcher = hub.config.watchers.find((candidate) => candidate.name === watcherName);
  const editor = composeEditorForWatcher(hub.composeFiles, watcher);
  if (!editor) return undefined;
  return {
    setServiceImage(change) {
      const trigger = triggerById(context, change.triggerName);
      if (trigger?.compose === false) {
        return Promise.resolve({
          path: change.files.at(-1) ?? '',
          status: 'skipped',
          reason: `DD_ACTION_DOCKER_${trigger.name.toUpperCase()}_COMPOSE=false`,
        });
      }
      return editor.setServiceImage(change);
    },
  };
}
