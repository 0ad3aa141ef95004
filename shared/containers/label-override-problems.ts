import { errorMessage } from '../error-message';
import { compileTagPolicy } from '../tags/policy-compile';
import { parseLabelDuration } from '../update/label-duration';
import { readContainerLabels } from './container-labels';
import type { LabelMap } from './label-overrides';

// Apart from label-overrides.ts, which the container schema imports: this brings the regex engine.

// dd.action.auto and dd.rollback.auto are read as exactly true / false (auto-update-policy.ts, rollback-labels.ts).
const STRICT_FLAGS = ['dd.action.auto', 'dd.rollback.auto'];

/**
 * What is wrong with these values, read by the same parsers as the labels (a bad label is shown on
 * the container and ignored; a bad override is refused). Each problem starts with its key.
 */
export function labelMapProblems(labels: LabelMap): string[] {
  const problems: string[] = [];
  // One key at a time, so that a problem of the policy group (reported as `dd.updatePolicy: …`) names its key.
  for (const [key, value] of Object.entries(labels))
    for (const problem of readContainerLabels({ [key]: value }).problems)
      problems.push(
        problem.startsWith('dd.updatePolicy:') ? `${key}${problem.slice('dd.updatePolicy'.length)}` : problem,
      );
  try {
    compileTagPolicy({
      includeTags: labels['dd.tag.include'],
      excludeTags: labels['dd.tag.exclude'],
      transformTags: labels['dd.tag.transform'],
    });
  } catch (error) {
    const field = (error as { field?: string }).field;
    const key =
      field === 'includeTags' ? 'dd.tag.include' : field === 'excludeTags' ? 'dd.tag.exclude' : 'dd.tag.transform';
    problems.push(`${key}: ${errorMessage(error)}`);
  }
  for (const key of STRICT_FLAGS) {
    const value = labels[key]?.trim().toLowerCase();
    if (value !== undefined && value !== 'true' && value !== 'false') problems.push(`${key} must be true or false`);
  }
  const approval = labels['dd.update.approval']?.trim().toLowerCase();
  if (approval !== undefined && approval !== 'required' && approval !== 'none')
    problems.push('dd.update.approval must be required or none');
  const window = labels['dd.rollback.window'];
  if (window !== undefined && !(Number(parseLabelDuration(window)) > 0))
    problems.push('dd.rollback.window must be a duration such as 90s, 5m or 1h');
  return problems;
}
