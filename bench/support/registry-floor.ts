import { mapLimit } from './map-limit';

const ACCEPT_MANIFEST =
  'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json';

/**
 * One manifest HEAD per reference (`host:port/repository:tag`), at most `inFlight` at once, through
 * whatever proxy the references name: what no cycle over those references can beat. Milliseconds.
 */
export async function registryFloor(references: readonly string[], inFlight = 16): Promise<number> {
  const started = performance.now();
  await mapLimit(references, inFlight, async (reference) => {
    const slash = reference.indexOf('/');
    const [repository, tag] = reference.slice(slash + 1).split(':') as [string, string];
    const url = `http://${reference.slice(0, slash)}/v2/${repository}/manifests/${tag}`;
    const response = await fetch(url, { method: 'HEAD', headers: { accept: ACCEPT_MANIFEST } });
    if (!response.ok) throw new Error(`registry floor: HEAD ${url} answered ${response.status}`);
  });
  return performance.now() - started;
}
