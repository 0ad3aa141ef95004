import type { ComposeFileEditor } from '../../../shared/compose';
import { triggerById, type UpdateContext } from './update-context';

/**
 * The compose file editor the engine gets for the hub's local containers: the runtime's
 * (`HubDeps.composeFiles`, Node only; none on Workers, where compose files are left alone), with
 * the trigger's `COMPOSE=false` honoured.
 */
export function composeFilesFor(context: UpdateContext): ComposeFileEditor | undefined {
  const editor = context.services().deps.composeFiles;
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
