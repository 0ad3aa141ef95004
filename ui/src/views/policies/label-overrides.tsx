import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { focusOpener, useReloadOnReconnect } from '../../admin-events';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText, NoticeText } from '../../components/error-text';
import { type ListColumn, ListTable } from '../../components/list-table';
import { TimeAgo } from '../../components/time-ago';
import { containerList } from '../../state';
import { useAction } from '../../use-action';
import { LabelOverrideForm } from './label-override-form';
import { MatchList } from './match-list';
import { type GlobalLabelOverride, type LabelOverrideSelector, policiesApi } from './policies-api';
import { matchingNames, selectorMatches } from './policy-matches';

/** "name web-*, agent edge-1", or every container. */
export function selectorWords(selector: LabelOverrideSelector): string {
  const parts = Object.entries(selector).map(([key, value]) => `${key} ${value}`);
  return parts.length > 0 ? parts.join(', ') : 'every container';
}

const labelLines = (override: GlobalLabelOverride) =>
  Object.entries(override.labels).map(([key, value]) => `${key}=${value}`);

/**
 * Global label overrides (docs/label-overrides.md): dd.* labels on every container a selector
 * matches, in the order they apply (a later one wins on the same key); add, remove (asked first).
 */
export function LabelOverrides() {
  const [overrides, setOverrides] = useState<GlobalLabelOverride[] | undefined>();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<GlobalLabelOverride | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const { busy, error, setError, run } = useAction();

  const load = () =>
    policiesApi.labelOverrides().then(
      (page) => setOverrides(page.data),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  useEffect(() => void load(), []);
  useReloadOnReconnect(load);

  async function remove(override: GlobalLabelOverride) {
    setNotice(undefined);
    const done = await run(() => policiesApi.removeLabelOverride(override.id));
    setRemoving(undefined);
    if (done) setNotice(`The override for ${selectorWords(override.selector)} is removed.`);
    await load();
  }

  const columns: readonly ListColumn<GlobalLabelOverride>[] = [
    { label: 'Selector', cell: (override) => selectorWords(override.selector) },
    {
      label: 'Labels',
      class: 'break',
      cell: (override) => (
        <ul class="label-lines">
          {labelLines(override).map((line) => (
            <li key={line} class="mono">
              {line}
            </li>
          ))}
        </ul>
      ),
    },
    {
      label: 'Applies to',
      cell: (override) => (
        <MatchList names={matchingNames(containerList.value, (c) => selectorMatches(override.selector, c))} />
      ),
    },
    {
      label: 'Added',
      cell: (override) => <TimeAgo at={override.createdAt} />,
    },
    {
      label: 'Actions',
      hiddenLabel: true,
      cell: (override) => (
        <button type="button" class="danger" disabled={busy} onClick={() => setRemoving(override)}>
          Remove…<span class="visually-hidden"> the override for {selectorWords(override.selector)}</span>
        </button>
      ),
    },
  ];

  return (
    <section aria-labelledby="label-overrides">
      <h2 id="label-overrides">Label overrides by selector</h2>
      <p class="hint">
        dd.* labels set through the hub on every container a selector matches, without re-creating them. An override on
        one container wins over these; these win over the container’s own labels. A later one wins on the same key.
      </p>
      {!adding && (
        <button type="button" id="open-override-form" onClick={() => setAdding(true)}>
          Add a label override
        </button>
      )}
      {adding && (
        <LabelOverrideForm
          onCancel={() => {
            setAdding(false);
            focusOpener('open-override-form');
          }}
          onAdded={(override) => {
            setAdding(false);
            focusOpener('open-override-form');
            setNotice(`Override added for ${selectorWords(override.selector)}.`);
            void load();
          }}
        />
      )}
      <ErrorText message={error} />
      <NoticeText message={notice} />
      {overrides?.length === 0 && <p>No label override by selector.</p>}
      {overrides && overrides.length > 0 && (
        <ListTable columns={columns} rows={overrides} rowKey={(override) => override.id} rowAttribute="data-override" />
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove the override for ${selectorWords(removing.selector)}?`}
          action="Remove the override"
          busy={busy}
          onConfirm={() => void remove(removing)}
          onCancel={() => setRemoving(undefined)}
        >
          <p>
            The containers it matches are read again without {labelLines(removing).join(', ')}: their own labels, or
            other overrides, decide again.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
