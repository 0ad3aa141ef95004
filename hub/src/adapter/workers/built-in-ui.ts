import type { UiSource } from '../../ui/ui-bundle';

/**
 * The web UI inside the Workers bundle: scripts/build-workers.mjs replaces this module with
 * dist/ui/ui-bundle.json (built by scripts/build-ui.mjs). Unbundled, there is none to serve.
 */
export const builtInUi: UiSource = {
  unavailable:
    'This Worker was bundled without the web UI. Bundle it with scripts/build-workers.mjs, which builds the UI first.',
};
