import type { ContainerSpec } from '../../../shared/docker/docker-host';

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
 */
export function withoutPodmanDefaults(spec: ContainerSpec): ContainerSpec {
  const { entrypoint, stopTimeout, stopSignal, ...rest } = spec;
  return {
    ...rest,
    env: spec.env.filter((entry) => entry !== PODMAN_DEFAULT_PATH && !PODMAN_ENV.some((added) => added.test(entry))),
    ...(entrypoint && entrypoint.length > 0 && { entrypoint }),
    ...(stopTimeout !== undefined && stopTimeout > 0 && { stopTimeout }),
    ...(stopSignal !== undefined && stopSignal !== '15' && stopSignal !== 'SIGTERM' && { stopSignal }),
  };
}
