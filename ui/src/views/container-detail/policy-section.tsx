import {
  MATURITY_MIN_AGE_DAYS_DEFAULT,
  MATURITY_MIN_AGE_DAYS_MAX,
  SNOOZE_MAX_DAYS,
} from '../../../../shared/update/policy-limits';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { when } from '../../format-time';
import { putContainer } from '../../state';
import { useAction } from '../../use-action';
import { DaysField } from './days-field';
import { detailApi, type UpdatePolicyAction } from './detail-api';

const BLOCKER_WORDS: Record<string, string> = {
  'maturity-not-reached': 'held by the maturity gate',
  snoozed: 'snoozed',
  skipped: 'skipped',
};

/**
 * The update policy (http-interface §2.5) and its actions (§4.8 PATCH update-policy): skip the
 * current candidate, snooze, the maturity gate, and clear. The answer is the container, put in the store.
 */
export function PolicySection({ c }: { c: Container }) {
  const policy = c.updatePolicy;
  const { busy, error, run } = useAction();
  const apply = (body: UpdatePolicyAction) => run(async () => putContainer(await detailApi.setPolicy(c.id, body)));

  const skipped = [
    ...(policy.skipTags ?? []).map((value) => ({ kind: 'tag' as const, value })),
    ...(policy.skipDigests ?? []).map((value) => ({ kind: 'digest' as const, value })),
  ];
  const hasPolicy = skipped.length > 0 || policy.snoozeUntil !== undefined || policy.maturityMode !== undefined;
  return (
    <section class="card" aria-labelledby="policy">
      <h2 id="policy">Update policy</h2>
      <dl class="grid" data-field="policy">
        <dt>Snoozed</dt>
        <dd>{policy.snoozeUntil ? `until ${when(policy.snoozeUntil)}` : 'no'}</dd>
        <dt>Maturity gate</dt>
        <dd>{policy.maturityMode === 'mature' ? `updates wait ${policy.maturityMinAgeDays ?? 7} days` : 'off'}</dd>
        <dt>Skipped</dt>
        <dd>
          {skipped.length === 0 ? (
            'nothing'
          ) : (
            <ul class="plain">
              {skipped.map((entry) => (
                <li key={`${entry.kind}:${entry.value}`}>
                  <span class="mono break">{entry.value}</span>{' '}
                  <button
                    type="button"
                    class="link"
                    disabled={busy}
                    aria-label={`Stop skipping ${entry.kind} ${entry.value}`}
                    onClick={() => apply({ action: 'remove-skip', kind: entry.kind, value: entry.value })}
                  >
                    unskip
                  </button>
                </li>
              ))}
            </ul>
          )}
        </dd>
        {(c.blockers ?? []).length > 0 && (
          <>
            <dt>Held</dt>
            <dd>
              {(c.blockers ?? [])
                .map(
                  (b) => `${BLOCKER_WORDS[b.reason] ?? b.reason}${b.liftableAt ? ` until ${when(b.liftableAt)}` : ''}`,
                )
                .join('; ')}
            </dd>
          </>
        )}
      </dl>
      <div class="actions">
        {c.updateAvailable && (
          <button type="button" class="secondary" disabled={busy} onClick={() => apply({ action: 'skip-current' })}>
            Skip this version
          </button>
        )}
        {policy.snoozeUntil ? (
          <button type="button" class="secondary" disabled={busy} onClick={() => apply({ action: 'unsnooze' })}>
            Unsnooze
          </button>
        ) : (
          // Keyed: Unsnooze turning into this field must not take the maturity field's place and
          // what was typed there (an unkeyed diff reused that instance, so 30 typed became 7 sent).
          <DaysField
            key="snooze-days"
            id="snooze-days"
            label="Snooze for (days)"
            initial="7"
            max={SNOOZE_MAX_DAYS}
            action="Snooze"
            disabled={busy}
            onSubmit={(days) => apply({ action: 'snooze', days })}
          />
        )}
        <DaysField
          key="maturity-days"
          id="maturity-days"
          label="Minimum age (days)"
          initial={String(policy.maturityMinAgeDays ?? MATURITY_MIN_AGE_DAYS_DEFAULT)}
          max={MATURITY_MIN_AGE_DAYS_MAX}
          action="Hold updates until mature"
          disabled={busy}
          onSubmit={(minAgeDays) => apply({ action: 'set-maturity-policy', mode: 'mature', minAgeDays })}
        />
        {policy.maturityMode && (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => apply({ action: 'clear-maturity-policy' })}
          >
            Remove the maturity gate
          </button>
        )}
        {skipped.length > 0 && (
          <button type="button" class="secondary" disabled={busy} onClick={() => apply({ action: 'clear-skips' })}>
            Clear skips
          </button>
        )}
        {hasPolicy && (
          <button type="button" class="secondary" disabled={busy} onClick={() => apply({ action: 'clear' })}>
            Clear the policy
          </button>
        )}
      </div>
      <ErrorText message={error} />
    </section>
  );
}
