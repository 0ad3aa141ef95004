import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/**
 * A section folded behind its title (a phone's container page: docs/ui.md). Its content mounts only
 * once opened, so a folded section reads nothing from the hub (logs, stats, history).
 */
export function Fold({ title, folded, children }: { title: string; folded: boolean; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  if (!folded) return <>{children}</>;
  return (
    <details class="fold card" onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
      <summary>{title}</summary>
      {open && children}
    </details>
  );
}
