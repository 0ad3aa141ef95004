/**
 * Podman runs a container's HEALTHCHECK from a systemd timer. Without systemd (`podman system
 * service` started by hand, or in a container) no timer exists, no check ever runs, and the
 * container stays `starting`: an update's health gate would wait for its timeout and roll back.
 * The Podman host then runs the check itself, through libpod's `GET /containers/{id}/healthcheck`
 * (what `podman healthcheck run` does), while the container is `starting` and someone looks at it:
 * at most once per interval, and only when no run of the container's current start is younger than
 * its interval. Under systemd the timer's own runs keep the log that young, so nothing is added.
 */
import * as v from 'valibot';

const NS_PER_MS = 1_000_000;

const HealthSchema = v.object({
  Log: v.optional(v.nullable(v.array(v.object({ End: v.string() })))),
});

/** The fields of `GET /libpod/containers/{id}/json` (Podman 4.3) that say when a check is due. */
const HealthcheckStateSchema = v.object({
  Config: v.object({
    Healthcheck: v.optional(v.nullable(v.object({ Interval: v.optional(v.number()) }))),
  }),
  State: v.object({
    StartedAt: v.optional(v.string()),
    // `Health` in Podman 4; some 4.x versions also (or only) answered `Healthcheck`.
    Health: v.optional(v.nullable(HealthSchema)),
    Healthcheck: v.optional(v.nullable(HealthSchema)),
  }),
});

/**
 * When the container's next check is due (Unix ms): one interval after the last run since its
 * current start, or at once when none ran since. Undefined without a check, or with an interval
 * of 0 (`--health-interval=disable`: its user runs the checks). Throws on an answer of another shape.
 */
export function nextHealthcheckAt(raw: unknown): number | undefined {
  const parsed = v.safeParse(HealthcheckStateSchema, raw);
  if (!parsed.success) throw new Error(`libpod inspect: unexpected answer: ${parsed.issues[0]?.message ?? 'invalid'}`);
  const { Config, State } = parsed.output;
  const intervalMs = (Config.Healthcheck?.Interval ?? 0) / NS_PER_MS;
  if (intervalMs <= 0) return undefined;
  const startedAt = Date.parse(State.StartedAt ?? '') || 0;
  const runs = (State.Health ?? State.Healthcheck)?.Log ?? [];
  // The log outlives a restart: runs before the current start say nothing about it.
  const lastRun = Math.max(...runs.map((run) => Date.parse(run.End)).filter((end) => end >= startedAt));
  return Number.isFinite(lastRun) ? lastRun + intervalMs : 0;
}

/** The libpod calls the driver makes. */
export interface HealthcheckApi {
  /** `GET /libpod/containers/{id}/json`, the raw answer. */
  inspectContainer(id: string): Promise<unknown>;
  /** `GET /libpod/containers/{id}/healthcheck`: runs the container's check once. */
  runHealthcheck(id: string): Promise<void>;
}

export interface HealthcheckDriver {
  /** Runs the container's check when one is due; true when it ran (its health may have changed). */
  runIfDue(id: string): Promise<boolean>;
}

export function createHealthcheckDriver(api: HealthcheckApi, now: () => number = Date.now): HealthcheckDriver {
  // One run at a time per container: the health gate's poll and an event's inspect may ask together.
  const running = new Map<string, Promise<boolean>>();
  const runIfDue = async (id: string): Promise<boolean> => {
    try {
      const dueAt = nextHealthcheckAt(await api.inspectContainer(id));
      if (dueAt === undefined || dueAt > now()) return false;
      await api.runHealthcheck(id);
      return true;
    } catch {
      // A courtesy: the container may have stopped or gone meanwhile (409, 404). Its health then
      // stays as Podman reports it, and the gate decides on that as it would have anyway.
      return false;
    }
  };
  return {
    runIfDue(id) {
      const pending = running.get(id);
      if (pending) return pending;
      const run = runIfDue(id).finally(() => running.delete(id));
      running.set(id, run);
      return run;
    },
  };
}
