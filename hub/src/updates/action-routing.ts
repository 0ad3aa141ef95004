import type { DockerActionTrigger } from './action-triggers';

export const ACTION_INCLUDE_LABEL = 'dd.action.include';
export const ACTION_EXCLUDE_LABEL = 'dd.action.exclude';

/** `docker.update,other` → entries; `docker.update` names that trigger, a bare `update` every trigger named so. */
function entries(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim().toLowerCase().split(':')[0]?.trim() ?? '')
    .filter((item) => item !== '');
}

const names = (entry: string, trigger: DockerActionTrigger) =>
  entry === trigger.id.toLowerCase() || (!entry.includes('.') && entry === trigger.name.toLowerCase());

/**
 * Whether a container's `dd.action.include` / `dd.action.exclude` labels let this action trigger act
 * on it (http-interface §9.8: manual updates obey them too). Same syntax as the dd.notification.* labels;
 * exclude wins, and an empty include label includes nothing in particular (it is ignored).
 */
export function actionAllowed(labels: Readonly<Record<string, string>>, trigger: DockerActionTrigger): boolean {
  if (entries(labels[ACTION_EXCLUDE_LABEL])?.some((entry) => names(entry, trigger))) return false;
  const include = entries(labels[ACTION_INCLUDE_LABEL]);
  return !include || include.length === 0 || include.some((entry) => names(entry, trigger));
}
