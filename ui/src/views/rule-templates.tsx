import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import {
  adminApi,
  type NotificationPreview,
  type NotificationRule,
  type RuleTemplates,
  type Trigger,
} from '../admin-api';
import { ErrorText } from '../components/error-text';
import { useAction } from '../use-action';

const FIELDS = [
  { key: 'simpleTitle', label: 'Title' },
  { key: 'simpleBody', label: 'Body' },
  { key: 'batchTitle', label: 'Batch title' },
] as const;
// Template syntax shown to the person, not JavaScript templates.
const PLACEHOLDER_NAME = ['$', '{container.name}'].join('');
const PLACEHOLDER_TAG = ['$', '{container.updateKind.remoteValue}'].join('');
/** Long enough that typing does not send a preview per key, short enough to feel live. */
const PREVIEW_DELAY_MS = 250;

/** Only the fields that hold text: an empty field falls back to the trigger's default (http-interface §4.9). */
function filled(draft: RuleTemplates): RuleTemplates {
  const out: RuleTemplates = {};
  for (const { key } of FIELDS) if (draft[key]) out[key] = draft[key];
  return out;
}

interface RuleTemplatesProps {
  rule: NotificationRule;
  /** Undefined while GET /triggers is on its way: the editor may be opened before it answers. */
  triggers: Trigger[] | undefined;
  onSaved: (rule: NotificationRule) => void;
}

/**
 * One rule's templates for one trigger, with the hub's own rendering of the draft beside it
 * (POST /notifications/{id}/preview, sample data): what is seen is what the trigger will send.
 */
export function RuleTemplatesEditor({ rule, triggers, onSaved }: RuleTemplatesProps) {
  // The person's pick, and the trigger edited: the pick while it exists, else the first one. Derived
  // on every render, so a list that arrives after the editor opened fills the select (issue 28).
  const [picked, setTriggerId] = useState<string | undefined>();
  const triggerId = triggers?.some((t) => t.id === picked) ? (picked as string) : (triggers?.[0]?.id ?? '');
  const [draft, setDraft] = useState<RuleTemplates>(rule.templates[triggerId] ?? {});
  const [preview, setPreview] = useState<NotificationPreview | undefined>();
  const [previewError, setPreviewError] = useState<string | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  const { busy, error, run } = useAction();

  useEffect(() => setDraft(rule.templates[triggerId] ?? {}), [triggerId]);

  const draftKey = JSON.stringify(draft);
  useEffect(() => {
    if (!triggerId) return;
    let current = true;
    const timer = setTimeout(() => {
      adminApi.previewRule(rule.id, triggerId, filled(draft)).then(
        (answer) => {
          if (!current) return;
          setPreview(answer);
          setPreviewError(undefined);
        },
        (failure: unknown) => current && setPreviewError(errorMessage(failure)),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [triggerId, draftKey]);

  async function save(event: Event) {
    event.preventDefault();
    setSaved(undefined);
    await run(async () => {
      const templates = { ...rule.templates };
      const kept = filled(draft);
      if (Object.keys(kept).length > 0) templates[triggerId] = kept;
      else delete templates[triggerId];
      onSaved(await adminApi.patchRule(rule.id, { templates }));
      setSaved('Saved.');
    });
  }

  if (triggers === undefined) return <p role="status">Loading the triggers…</p>;
  if (triggers.length === 0)
    return <p>No notification trigger is configured (DD_NOTIFICATION_*), so there is no template to edit.</p>;
  const id = `tpl-${rule.id}`;
  return (
    <form class="templates" onSubmit={save} aria-label={`Templates of ${rule.name}`}>
      <div class="stack">
        <label>
          Trigger
          <select value={triggerId} onChange={(e) => setTriggerId(e.currentTarget.value)}>
            {triggers.map((trigger) => (
              <option key={trigger.id} value={trigger.id}>
                {trigger.id}
              </option>
            ))}
          </select>
        </label>
        {FIELDS.map(({ key, label }) => (
          <label key={key}>
            {label}
            <textarea
              name={key}
              rows={key === 'simpleBody' ? 4 : 2}
              spellcheck={false}
              class="mono"
              value={draft[key] ?? ''}
              placeholder="Empty: the trigger's default"
              onInput={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}
            />
          </label>
        ))}
        <p class="hint">
          Write <code>{PLACEHOLDER_NAME}</code>, <code>{PLACEHOLDER_TAG}</code> and the like.
        </p>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Save the templates'}
          </button>
        </div>
        <ErrorText message={error} />
        {saved && <p role="status">{saved}</p>}
      </div>
      <section class="preview" aria-labelledby={`${id}-preview`} aria-live="polite">
        <h3 id={`${id}-preview`}>Preview</h3>
        {previewError ? (
          <p class="error">{previewError}</p>
        ) : preview ? (
          <dl class="grid">
            <dt>Title</dt>
            <dd class="break" data-preview="simpleTitle">
              {preview.simpleTitle}
            </dd>
            <dt>Body</dt>
            <dd class="break pre" data-preview="simpleBody">
              {preview.simpleBody}
            </dd>
            <dt>Batch title</dt>
            <dd class="break" data-preview="batchTitle">
              {preview.batchTitle}
            </dd>
          </dl>
        ) : (
          <p>Rendering…</p>
        )}
      </section>
    </form>
  );
}
