import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { focusOpener, groupPoliciesChanged, useReloadOnReconnect } from '../../admin-events';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText, NoticeText } from '../../components/error-text';
import { type ListColumn, ListTable } from '../../components/list-table';
import { TimeAgo } from '../../components/time-ago';
import { containerList } from '../../state';
import { useAction } from '../../use-action';
import { GroupPolicyForm } from './group-policy-form';
import { MatchList } from './match-list';
import { type GroupPolicy, policiesApi } from './policies-api';
import { matchingNames, policyMatches } from './policy-matches';
import { policySummary } from './policy-words';

const keyOf = (policy: GroupPolicy) => `${policy.scope}:${policy.name}`;
const scopeWords = (policy: GroupPolicy) => (policy.scope === 'group' ? 'Group' : 'Agent');

/**
 * Group and agent policies (docs/group-policies.md), by scope then name as the API lists them;
 * set, edit and clear (asked first); reloaded at every `dd:group-policy-updated`.
 */
export function GroupPolicies() {
  const [policies, setPolicies] = useState<GroupPolicy[] | undefined>();
  // undefined: no form; null: a new policy; a policy: that one edited.
  const [editing, setEditing] = useState<GroupPolicy | null | undefined>();
  const [clearing, setClearing] = useState<GroupPolicy | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const { busy, error, setError, run } = useAction();

  const load = () =>
    policiesApi.groupPolicies().then(
      (page) => setPolicies(page.data),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  useEffect(() => void load(), [groupPoliciesChanged.value]);
  useReloadOnReconnect(load);

  async function clear(policy: GroupPolicy) {
    setNotice(undefined);
    const done = await run(() => policiesApi.clearGroupPolicy(policy.scope, policy.name));
    setClearing(undefined);
    if (done) setNotice(`The ${policy.scope} policy ${policy.name} is cleared.`);
    await load();
  }

  const columns: readonly ListColumn<GroupPolicy>[] = [
    {
      label: 'Policy',
      cell: (policy) => (
        <span>
          {scopeWords(policy)} <strong>{policy.name}</strong>
        </span>
      ),
    },
    { label: 'What it sets', cell: policySummary },
    {
      label: 'Applies to',
      cell: (policy) => <MatchList names={matchingNames(containerList.value, (c) => policyMatches(policy, c))} />,
    },
    {
      label: 'Changed',
      cell: (policy) => <TimeAgo at={policy.updatedAt} />,
    },
    {
      label: 'Actions',
      hiddenLabel: true,
      cell: (policy) => (
        <div class="actions">
          <button type="button" class="secondary" disabled={busy} onClick={() => setEditing(policy)}>
            Edit
            <span class="visually-hidden">
              {' '}
              the {policy.scope} policy {policy.name}
            </span>
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => setClearing(policy)}>
            Clear…
            <span class="visually-hidden">
              {' '}
              the {policy.scope} policy {policy.name}
            </span>
          </button>
        </div>
      ),
    },
  ];

  return (
    <section aria-labelledby="group-policies">
      <h2 id="group-policies">Group policies</h2>
      <p class="hint">
        The update policy of a group of containers or of a host at once. A container’s label and its label override win
        over a group’s policy, which wins over its agent’s, which wins over the hub’s settings.
      </p>
      {editing === undefined && (
        <button type="button" id="open-policy-form" onClick={() => setEditing(null)}>
          Set a policy
        </button>
      )}
      {editing !== undefined && (
        <GroupPolicyForm
          key={editing ? keyOf(editing) : 'new'}
          editing={editing ?? undefined}
          onCancel={() => {
            setEditing(undefined);
            focusOpener('open-policy-form');
          }}
          onSaved={(policy) => {
            setEditing(undefined);
            focusOpener('open-policy-form');
            setNotice(`The ${policy.scope} policy ${policy.name} is saved.`);
            void load();
          }}
        />
      )}
      <ErrorText message={error} />
      <NoticeText message={notice} />
      {policies?.length === 0 && <p>No group or agent policy: the hub’s settings and the labels decide.</p>}
      {policies && policies.length > 0 && (
        <ListTable columns={columns} rows={policies} rowKey={keyOf} rowAttribute="data-policy" />
      )}
      {clearing && (
        <ConfirmDialog
          title={`Clear the ${clearing.scope} policy ${clearing.name}?`}
          action="Clear the policy"
          busy={busy}
          onConfirm={() => void clear(clearing)}
          onCancel={() => setClearing(undefined)}
        >
          <p>
            Its containers then follow the next level: {clearing.scope === 'group' ? 'their agent’s policy or ' : ''}the
            hub’s settings.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
