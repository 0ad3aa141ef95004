import { signal } from '@preact/signals';
import type { UiEventData } from '../../shared/schemas/ui-events';

/** A scan-all cycle as the live stream tells it: scheduled and scan-all's cumulative count; `done` at its end. */
export interface ScanCycle {
  cycleId: string;
  scheduled: number;
  completed: number;
  done: boolean;
  scanned?: number;
  failed?: number;
}

/** The latest scan-all cycle seen on the stream (a scheduled one too), for the security view. */
export const scanCycle = signal<ScanCycle | undefined>(undefined);
/** Moves when findings changed (a scan of its own, a scan-all's end): views showing them read them again. */
export const scansChanged = signal(0);

export function scanStarted(cycleId: string, scheduled: number): void {
  if (scanCycle.value?.cycleId === cycleId) return;
  scanCycle.value = { cycleId, scheduled, completed: 0, done: false };
}

export function scanCompleted(event: UiEventData<'dd:scan-completed'>): void {
  const { cycleId } = event;
  // A scan of its own changes the findings now; a scan-all's 1,000 scans are read once, at its end.
  if (!cycleId) {
    scansChanged.value += 1;
    return;
  }
  const known = scanCycle.value?.cycleId === cycleId ? scanCycle.value : undefined;
  // Cumulative counts: the highest seen is the truth (events of one cycle may arrive out of order).
  const completed = Math.max(known?.completed ?? 0, event.completedCount ?? (known?.completed ?? 0) + 1);
  const scheduled = event.scheduledCount ?? known?.scheduled ?? completed;
  scanCycle.value = { cycleId, scheduled, completed, done: known?.done ?? false };
}

export function scanCycleComplete(event: UiEventData<'security-scan-cycle-complete'>): void {
  scansChanged.value += 1;
  scanCycle.value = {
    cycleId: event.cycleId,
    scheduled: event.scheduledCount,
    completed: event.completedCount,
    done: true,
    scanned: event.scanned,
    failed: event.failed,
  };
}
