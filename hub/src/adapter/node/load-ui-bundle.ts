import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { errorMessage } from '../../../../shared/error-message';
import { UiBundleSchema, type UiSource } from '../../ui/ui-bundle';

/**
 * Where scripts/build-ui.mjs writes the UI: `ui/ui-bundle.json` beside the production bundle. Once
 * bundled, this module's URL is dist/hub.mjs's or, loaded lazily by the entry, a file in dist/chunks/;
 * run by tsx it is hub/src/adapter/node's, which has no ui/ folder: then the repository's dist/ui.
 */
export function uiBundleFile(): string {
  for (const besideBundle of ['./ui/ui-bundle.json', '../ui/ui-bundle.json']) {
    const file = fileURLToPath(new URL(besideBundle, import.meta.url));
    if (existsSync(file)) return file;
  }
  return fileURLToPath(new URL('../../../../dist/ui/ui-bundle.json', import.meta.url));
}

const HOW_TO_BUILD =
  'Build it with `npm run build:ui` (node scripts/build-ui.mjs) and restart the hub; `npm start` does both.';

/** Reads the built UI; a missing or damaged build is a clear message on the page, never a failed start. */
export function loadUiBundle(file = uiBundleFile()): UiSource {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      unavailable: `${missing ? `${file} does not exist` : `cannot read ${file}: ${errorMessage(error)}`}. ${HOW_TO_BUILD}`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { unavailable: `${file} is not valid JSON. ${HOW_TO_BUILD}` };
  }
  const parsed = v.safeParse(UiBundleSchema, json);
  if (!parsed.success) return { unavailable: `${file} is not a UI build this hub understands. ${HOW_TO_BUILD}` };
  return parsed.output;
}
