import { useState } from 'preact/hooks';
import { api, type Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { putContainer } from '../../state';
import { useAction } from '../../use-action';

/** What one check found, in words: the person asked, so an answer shows even when nothing changed. */
export function checkOutcome(c: Container): { ok: boolean; text: string } {
  if (c.error) return { ok: false, text: `The check failed: ${c.error.message}` };
  const running = c.image.tag.value;
  if (c.updateAvailable) {
    const candidate = c.result?.tag && c.result.tag !== running ? c.result.tag : 'a new build';
    return { ok: true, text: `Checked just now: ${running} → ${candidate} is available.` };
  }
  return { ok: true, text: `Checked just now: up to date (${running} is the newest version the registry has).` };
}

/** "Check now" (POST /containers/{id}/watch) and what the check found, beside the button. */
export function CheckNow({ c, disabled = false }: { c: Container; disabled?: boolean }) {
  const { busy, error, run } = useAction();
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>();
  const check = () =>
    run(async () => {
      setOutcome(undefined);
      const checked = await api.watch(c.id);
      putContainer(checked);
      setOutcome(checkOutcome(checked));
    });
  return (
    <>
      <button type="button" class="secondary" disabled={busy || disabled} onClick={check}>
        {busy ? 'Checking…' : 'Check now'}
      </button>
      <span role="status" class={outcome?.ok === false ? 'error check-outcome' : 'check-outcome'}>
        {outcome?.text}
      </span>
      <ErrorText message={error} />
    </>
  );
}
