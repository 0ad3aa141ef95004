import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { type Approval, type ApprovalState, adminApi } from '../admin-api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorText, NoticeText } from '../components/error-text';
import { type ListColumn, ListTable } from '../components/list-table';
import { relative, when } from '../format-time';
import { approvalsChanged, pendingApprovals } from '../state';
import { useAction } from '../use-action';

/** The filter's choices: what waits first, then each final state (docs/approvals.md). */
const FILTERS: readonly { value: ApprovalState | ''; label: string }[] = [
  { value: 'pending', label: 'Waiting for a decision' },
  { value: 'deferred', label: 'Deferred' },
  { value: 'approved', label: 'Approved, not run yet' },
  { value: 'executed', label: 'Approved and run' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'superseded', label: 'Superseded by a newer version' },
  { value: '', label: 'All' },
];

/** How long "Defer" snoozes: the choices a person makes, in hours. */
const DEFER_CHOICES = [
  { hours: 24, label: '1 day' },
  { hours: 24 * 7, label: '1 week' },
  { hours: 24 * 30, label: '30 days' },
];

const OPEN: readonly ApprovalState[] = ['pending', 'deferred'];

/** Every column but the actions, which need the view's handlers. */
const APPROVAL_COLUMNS: readonly ListColumn<Approval>[] = [
  {
    label: 'Container',
    cell: (approval) => (
      <span>
        <a href={`/containers/${encodeURIComponent(approval.containerId)}`}>{approval.containerName}</a>
        <span class="hint"> · {approval.agent ?? approval.watcher}</span>
      </span>
    ),
  },
  {
    label: 'Update',
    class: 'break',
    cell: (approval) => (
      <span>
        <span class="mono">{approval.fromVersion}</span> → <span class="mono">{approval.toVersion}</span>
        <span class="hint"> · {approval.updateKind === 'digest' ? 'new digest' : 'new tag'}</span>
      </span>
    ),
  },
  {
    label: 'State',
    cell: (approval) => (
      <span>
        {approval.state}
        {approval.deferredUntil && approval.state === 'deferred' && (
          <span class="hint"> until {when(approval.deferredUntil)}</span>
        )}
        {approval.decidedBy && (
          <span class="hint">
            {' '}
            · by {approval.decidedBy.name ?? approval.decidedBy.kind}
            {approval.decidedAt && ` ${relative(approval.decidedAt)}`}
          </span>
        )}
        {approval.comment && <span class="hint"> · “{approval.comment}”</span>}
      </span>
    ),
  },
  {
    label: 'Requested',
    cell: (approval) => (
      <time dateTime={approval.createdAt} title={when(approval.createdAt)}>
        {relative(approval.createdAt)}
      </time>
    ),
  },
];

/**
 * Updates that wait for a person (docs/approvals.md): approve runs the update, reject skips that
 * version, defer snoozes the container. The list follows the live stream's approval events.
 */
export function Approvals() {
  const [filter, setFilter] = useState<ApprovalState | ''>('pending');
  const [approvals, setApprovals] = useState<Approval[] | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [rejecting, setRejecting] = useState<Approval | undefined>();
  const [comment, setComment] = useState('');
  const { busy, error, setError, run } = useAction();

  const load = () =>
    adminApi.approvals(filter || undefined).then(
      (page) => setApprovals(page.data),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  // Reloaded when the filter changes and at every approval event of the live stream.
  useEffect(() => void load(), [filter, approvalsChanged.value]);
  useEffect(() => setError(undefined), [filter]);

  async function act(decide: () => Promise<string>) {
    setNotice(undefined);
    await run(async () => setNotice(await decide()));
    setRejecting(undefined);
    setComment('');
    await load();
  }

  const approve = (approval: Approval) => act(async () => (await adminApi.approve(approval.id)).message);
  const defer = (approval: Approval, hours: number, label: string) =>
    act(async () => {
      await adminApi.defer(approval.id, hours);
      return `${approval.containerName}: ${approval.toVersion} deferred for ${label}.`;
    });
  const reject = (approval: Approval) =>
    act(async () => {
      await adminApi.reject(approval.id, comment.trim() || undefined);
      return `${approval.containerName}: ${approval.toVersion} rejected; it will not be offered again.`;
    });

  const columns: readonly ListColumn<Approval>[] = [
    ...APPROVAL_COLUMNS,
    {
      label: 'Actions',
      hiddenLabel: true,
      cell: (approval) =>
        OPEN.includes(approval.state) && (
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => approve(approval)}>
              Approve
            </button>
            {DEFER_CHOICES.map((choice) => (
              <button
                key={choice.hours}
                type="button"
                class="secondary"
                disabled={busy}
                onClick={() => defer(approval, choice.hours, choice.label)}
              >
                Defer {choice.label}
                <span class="visually-hidden"> for {approval.containerName}</span>
              </button>
            ))}
            <button type="button" class="danger" disabled={busy} onClick={() => setRejecting(approval)}>
              Reject
            </button>
          </div>
        ),
    },
  ];

  return (
    <main id="main" tabIndex={-1}>
      <h1>Approvals</h1>
      <p class="hint">
        Updates that need a person's decision before they run: set by the hub setting, a container's{' '}
        <span class="mono">dd.update.approval</span> label or its override. {pendingApprovals.value} waiting.
      </p>
      <div class="actions">
        <label>
          Show{' '}
          <select value={filter} onChange={(event) => setFilter(event.currentTarget.value as ApprovalState | '')}>
            {FILTERS.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorText message={error} />
      <NoticeText message={notice} />
      {approvals && approvals.length === 0 && <p>No approval in this list.</p>}
      {approvals && approvals.length > 0 && (
        <ListTable columns={columns} rows={approvals} rowKey={(approval) => approval.id} rowAttribute="data-approval" />
      )}
      {rejecting && (
        <ConfirmDialog
          title={`Reject ${rejecting.toVersion} for ${rejecting.containerName}?`}
          action="Reject the update"
          busy={busy}
          onConfirm={() => reject(rejecting)}
          onCancel={() => setRejecting(undefined)}
        >
          <p>
            {rejecting.containerName} will not be offered <span class="mono">{rejecting.toVersion}</span> again; a newer
            version asks again.
          </p>
          <label>
            Why (optional){' '}
            <input
              type="text"
              maxLength={500}
              value={comment}
              onInput={(event) => setComment(event.currentTarget.value)}
            />
          </label>
        </ConfirmDialog>
      )}
    </main>
  );
}
