import { useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { actionTriggerFor, actionTriggers, HOW_TO_ENABLE_UPDATES } from '../../action-triggers';
import { type Approval, adminApi } from '../../admin-api';
import { api, type Container } from '../../api';
import { ContainerIcon } from '../../components/container-icon';
import { ErrorText } from '../../components/error-text';
import { UpdatePreviewCard } from '../../components/update-preview-card';
import { candidateOf, updateKindOf } from '../../format';
import { relative, when } from '../../format-time';
import { seedOperation } from '../container-detail/seed-operation';
import { displayNameOf, securityDeltaOf } from './attention';

/** What a person can do about one pending update, or why nothing. */
type RowAction = { kind: 'update' } | { kind: 'approve'; approval: Approval } | { kind: 'cannot'; reason: string };

function actionOf(c: Container, approval: Approval | undefined): RowAction {
  const triggers = actionTriggers.value;
  if (triggers !== undefined && !actionTriggerFor(c, triggers))
    return { kind: 'cannot', reason: 'Not updated by the hub: no Docker action trigger' };
  if (approval?.state === 'pending') return { kind: 'approve', approval };
  if (approval?.state === 'deferred')
    return { kind: 'cannot', reason: `Approval deferred until ${when(approval.deferredUntil)}` };
  const held = c.blockers?.find((blocker) => blocker.reason === 'maturity-not-reached');
  if (held) return { kind: 'cannot', reason: `Held until ${when(held.liftableAt)} (maturity gate)` };
  return { kind: 'update' };
}

const KIND_WORDS: Record<string, string> = {
  major: 'major update',
  minor: 'minor update',
  patch: 'patch',
  digest: 'new build of the same tag',
};

/** The running version and the candidate, coloured by the kind of the update. */
export function VersionChip({ c }: { c: Container }) {
  const kind = updateKindOf(c);
  return (
    <span class={`badge chip ${kind}`} data-field="version-chip">
      <span class="mono">{c.image.tag.value}</span> → <span class="mono">{candidateOf(c)}</span>
      <span class="visually-hidden"> ({KIND_WORDS[kind] ?? 'update'})</span>
    </span>
  );
}

function Facts({ c }: { c: Container }) {
  const delta = securityDeltaOf(c);
  const published = c.result?.publishedAt;
  return (
    <span class="hint update-facts">
      {published && <span title={when(published)}>published {relative(published)}</span>}
      {c.updateMaturityLevel && <span>{c.updateMaturityLevel}</span>}
      {delta && (
        <span data-field="security-delta" class={delta.fixesSevere ? 'fixes-severe' : undefined}>
          fixes {delta.fixed}, introduces {delta.introduced} known vulnerabilities
        </span>
      )}
    </span>
  );
}

/**
 * The pending updates, most important first, each with its icon, name, versions, age, maturity,
 * security delta and its one action: Update (through the preview), Approve, or why it cannot run.
 */
export function PendingUpdates({
  ranked,
  approvals,
  onApproved,
}: {
  ranked: Container[];
  approvals: readonly Approval[];
  onApproved: () => void;
}) {
  const [open, setOpen] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [error, setError] = useState<{ id: string; message: string } | undefined>();
  const approvalOf = (c: Container) =>
    approvals.find(
      (approval) =>
        approval.containerName === c.name &&
        approval.watcher === c.watcher &&
        approval.agent === c.agent &&
        approval.toVersion === c.result?.tag,
    );
  async function run(c: Container, work: () => Promise<void>) {
    setBusy(c.id);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError({ id: c.id, message: errorMessage(failure) });
    } finally {
      setBusy(undefined);
    }
  }
  const triggers = actionTriggers.value;
  const withoutTrigger = triggers !== undefined && ranked.some((c) => !actionTriggerFor(c, triggers));

  return (
    <>
      {withoutTrigger && (
        <p class="notice" data-field="no-action-trigger">
          {HOW_TO_ENABLE_UPDATES}
        </p>
      )}
      <ol class="plain pending-updates">
        {ranked.map((c) => {
          const action = actionOf(c, approvalOf(c));
          const name = displayNameOf(c);
          return (
            <li key={c.id} class="pending-update" data-container={c.name} data-kind={updateKindOf(c)}>
              <div class="update-row">
                <ContainerIcon c={c} />
                <span class="update-name">
                  <a href={`/containers/${encodeURIComponent(c.id)}`} class="break">
                    {name}
                  </a>
                  {name !== c.name && <span class="hint break"> {c.name}</span>}
                  {/* The same app on several hosts (a rollout's workers) is told apart by its host. */}
                  {c.agent && <span class="hint break"> on {c.agent}</span>}
                </span>
                <VersionChip c={c} />
                <Facts c={c} />
                <span class="update-action">
                  {action.kind === 'update' && (
                    <button
                      type="button"
                      aria-label={`Update ${name}…`}
                      disabled={open === c.id || busy !== undefined}
                      onClick={() => setOpen(c.id)}
                    >
                      Update…
                    </button>
                  )}
                  {action.kind === 'approve' && (
                    <button
                      type="button"
                      aria-label={`Approve the update of ${name}`}
                      disabled={busy !== undefined}
                      onClick={() =>
                        run(c, async () => {
                          const approved = await adminApi.approve(action.approval.id);
                          onApproved();
                          await seedOperation(approved.operationId);
                        })
                      }
                    >
                      {busy === c.id ? 'Approving…' : 'Approve'}
                    </button>
                  )}
                  {action.kind === 'cannot' && <span class="hint">{action.reason}</span>}
                </span>
              </div>
              {error?.id === c.id && <ErrorText message={error.message} />}
              {open === c.id && (
                <UpdatePreviewCard
                  c={c}
                  starting={busy === c.id}
                  onClose={() => setOpen(undefined)}
                  onStart={() =>
                    run(c, async () => {
                      const started = await api.update(c.id);
                      setOpen(undefined);
                      await seedOperation(started.operationId);
                    })
                  }
                />
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}
