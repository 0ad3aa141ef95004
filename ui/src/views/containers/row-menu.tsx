import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { SNOOZE_MAX_DAYS } from '../../../../shared/update/policy-limits';
import { actionTriggerFor, actionTriggers, loadActionTriggers } from '../../action-triggers';
import { api, type Container } from '../../api';
import { UpdatePreviewCard } from '../../components/update-preview-card';
import { containers, putContainer } from '../../state';
import { DaysField } from '../container-detail/days-field';
import { detailApi, type UpdatePolicyAction } from '../container-detail/detail-api';
import { seedOperation } from '../container-detail/seed-operation';
import { displayNameOf } from '../dashboard/attention';

/** The dialog a row's menu opened (by container id), and what the last row action said. */
export const rowDialog = signal<{ kind: 'update' | 'snooze'; id: string } | undefined>(undefined);
export const rowMessage = signal<{ text: string; error: boolean } | undefined>(undefined);
const busy = signal(false);

const menuId = (c: Container) => `row-menu-${c.id}`;
const buttonId = (id: string) => `row-menu-button-${id}`;

/** The same PATCH update-policy the detail page sends (http-interface §4.8); the answer replaces the row. */
async function applyPolicy(c: Container, body: UpdatePolicyAction, done: string): Promise<boolean> {
  busy.value = true;
  try {
    putContainer(await detailApi.setPolicy(c.id, body));
    rowMessage.value = { text: done, error: false };
    return true;
  } catch (error) {
    rowMessage.value = { text: `${displayNameOf(c)}: ${errorMessage(error)}`, error: true };
    return false;
  } finally {
    busy.value = false;
  }
}

/**
 * A row's actions behind one button: Update… (through the preview), Skip this version, Snooze….
 * The menu is a popover (the top layer: never clipped by the scrolling list), anchored to its
 * button by CSS; the browser closes it on Escape or a click elsewhere and gives focus back.
 */
export function RowMenu({ c }: { c: Container }) {
  const menu = useRef<HTMLDivElement>(null);
  const name = displayNameOf(c);
  const triggers = actionTriggers.value;
  const noTrigger = triggers !== undefined && !actionTriggerFor(c, triggers);
  const close = () => menu.current?.hidePopover();
  return (
    <>
      <button
        type="button"
        class="secondary row-menu-button"
        id={buttonId(c.id)}
        popovertarget={menuId(c)}
        aria-label={`Actions for ${name}`}
      >
        ⋯
      </button>
      <div
        ref={menu}
        id={menuId(c)}
        popover="auto"
        class="row-menu"
        onToggle={(event) => {
          if (event.newState !== 'open') return;
          void loadActionTriggers();
          menu.current?.querySelector<HTMLElement>('button:not([disabled])')?.focus();
        }}
      >
        {c.updateAvailable && !noTrigger && (
          <button
            type="button"
            onClick={() => {
              close();
              rowDialog.value = { kind: 'update', id: c.id };
            }}
          >
            Update…
          </button>
        )}
        {c.updateAvailable && noTrigger && <p class="hint">Not updated by the hub: no Docker action trigger</p>}
        {c.updateAvailable && (
          <button
            type="button"
            disabled={busy.value}
            onClick={() => {
              close();
              void applyPolicy(c, { action: 'skip-current' }, `${name}: this version is skipped.`);
            }}
          >
            Skip this version
          </button>
        )}
        {c.updatePolicy.snoozeUntil ? (
          <button
            type="button"
            disabled={busy.value}
            onClick={() => {
              close();
              void applyPolicy(c, { action: 'unsnooze' }, `${name}: no longer snoozed.`);
            }}
          >
            Unsnooze
          </button>
        ) : (
          <button
            type="button"
            onClick={() => {
              close();
              rowDialog.value = { kind: 'snooze', id: c.id };
            }}
          >
            Snooze…
          </button>
        )}
      </div>
    </>
  );
}

/** A modal `<dialog>` (Escape closes it); focus goes back to the row's menu button, or the view. */
function RowDialog({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => {
      element?.close();
      (document.getElementById(buttonId(id)) ?? document.getElementById('main'))?.focus({ preventScroll: true });
    };
  }, [id]);
  return (
    <dialog
      ref={dialog}
      class="confirm row-dialog"
      aria-labelledby="row-dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        rowDialog.value = undefined;
      }}
    >
      <h2 id="row-dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

/** The dialog a row menu opened: the update preview, or how many days to snooze. */
export function RowDialogs() {
  const open = rowDialog.value;
  const c = open ? containers.value.get(open.id) : undefined;
  if (!open || !c) return null;
  const name = displayNameOf(c);
  const done = () => {
    rowDialog.value = undefined;
  };
  if (open.kind === 'snooze')
    return (
      <RowDialog id={c.id} title={`Snooze ${name}`}>
        <p>Its updates are not notified nor applied automatically until then.</p>
        <div class="actions">
          <DaysField
            id="row-snooze-days"
            label="Snooze for (days)"
            initial="7"
            max={SNOOZE_MAX_DAYS}
            action="Snooze"
            disabled={busy.value}
            onSubmit={(days) =>
              void applyPolicy(c, { action: 'snooze', days }, `${name}: snoozed for ${days} days.`).then(
                (ok) => ok && done(),
              )
            }
          />
          <button type="button" class="secondary" onClick={done}>
            Cancel
          </button>
        </div>
      </RowDialog>
    );
  return (
    <RowDialog id={c.id} title={`Update ${name}`}>
      <UpdatePreviewCard
        c={c}
        starting={busy.value}
        onClose={done}
        onStart={() => {
          busy.value = true;
          api
            .update(c.id)
            .then(async (started) => {
              done();
              rowMessage.value = { text: `${name}: the update has started.`, error: false };
              await seedOperation(started.operationId);
            })
            .catch((error) => {
              rowMessage.value = { text: `${name}: ${errorMessage(error)}`, error: true };
              done();
            })
            .finally(() => {
              busy.value = false;
            });
        }}
      />
    </RowDialog>
  );
}
