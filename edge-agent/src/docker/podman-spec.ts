import * as v from 'valibot';
import type { ContainerHealthcheckSpec, ContainerSpec } from '../../../shared/docker/docker-host';

/** The PATH Podman puts in every container whose image has none (containers.conf `env`). */
const PODMAN_DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** What Podman adds to every container's environment, which its compatible inspect reports as the container's own. */
const PODMAN_ENV = [/^container=podman$/, /^HOSTNAME=/, /^TERM=xterm$/];

/**
 * A container's spec, as read through Podman's Docker-compatible inspect, without what Podman
 * reports there that the container never set (seen on Podman 4.3.1), so that re-creating it on a
 * new image keeps the container's settings and takes the new image's defaults:
 * - `container=podman`, `TERM=xterm`, `HOSTNAME=<the old container's id>` and Podman's default
 *   PATH in `Env`: given back, the new container would carry the old one's host name, and the
 *   default PATH would hide a PATH the new image sets. Podman adds them again on create.
 * - `Entrypoint: []` for an image without one: kept, it would clear an entrypoint a new image adds.
 * - `StopTimeout: 0` when none was set: kept, the new container would be killed at once on stop
 *   rather than after Podman's default 10 s. (An explicit `--stop-timeout 0` is lost with it.)
 * - `StopSignal: "15"` (SIGTERM, Podman's default, as a number): kept, it would override a
 *   `STOPSIGNAL` of the new image.
 * - `Healthcheck`: the image's HEALTHCHECK, which Podman copies into the container (its default
 *   interval and timeout filled in), while its compatible image inspect reports none. Kept, the new
 *   container would run the old image's check instead of its own. `image` is the image's check, as
 *   libpod reports it (imageHealthcheck): the container's is left out when it is that one.
 */
export function withoutPodmanDefaults(spec: ContainerSpec, image?: ContainerHealthcheckSpec): ContainerSpec {
  const { entrypoint, stopTimeout, stopSignal, healthcheck, ...rest } = spec;
  return {
    ...rest,
    ...(healthcheck && !isImageHealthcheck(healthcheck, image) && { healthcheck }),
    env: spec.env.filter((entry) => entry !== PODMAN_DEFAULT_PATH && !PODMAN_ENV.some((added) => added.test(entry))),
    ...(entrypoint && entrypoint.length > 0 && { entrypoint }),
    ...(stopTimeout !== undefined && stopTimeout > 0 && { stopTimeout }),
    ...(stopSignal !== undefined && stopSignal !== '15' && stopSignal !== 'SIGTERM' && { stopSignal }),
  };
}

const HealthcheckSchema = v.object({
  Test: v.array(v.string()),
  Interval: v.optional(v.number()),
  Timeout: v.optional(v.number()),
  StartPeriod: v.optional(v.number()),
  Retries: v.optional(v.number()),
});

/** `GET /libpod/images/{id}/json` (Podman 4.3), the field read here. */
const LibpodImageSchema = v.object({ Healthcheck: v.optional(v.nullable(HealthcheckSchema)) });

/** The image's HEALTHCHECK, from its libpod inspect, with what it sets only; throws on an answer of another shape. */
export function imageHealthcheck(raw: unknown): ContainerHealthcheckSpec | undefined {
  const parsed = v.safeParse(LibpodImageSchema, raw);
  if (!parsed.success)
    throw new Error(`libpod image inspect: unexpected answer: ${parsed.issues[0]?.message ?? 'invalid'}`);
  const check = parsed.output.Healthcheck;
  if (!check) return undefined;
  return {
    test: check.Test,
    ...(check.Interval ? { intervalNs: check.Interval } : {}),
    ...(check.Timeout ? { timeoutNs: check.Timeout } : {}),
    ...(check.StartPeriod ? { startPeriodNs: check.StartPeriod } : {}),
    ...(check.Retries ? { retries: check.Retries } : {}),
  };
}

const TIMINGS = ['intervalNs', 'timeoutNs', 'startPeriodNs', 'retries'] as const;

/** The same command, and the same timings where the image sets them (Podman fills in the others). */
function isImageHealthcheck(container: ContainerHealthcheckSpec, image: ContainerHealthcheckSpec | undefined): boolean {
  if (!image || JSON.stringify(container.test) !== JSON.stringify(image.test)) return false;
  return TIMINGS.every((key) => image[key] === undefined || image[key] === container[key]);
}
