import type { DockerContainerDetails, DockerHost } from '../../../shared/docker/docker-host';

/**
 * The host for a check whose output shows nothing only an inspect gives (`dockwatch check`'s table:
 * no environment, health, start time, restart count or exit code): a listed container's details
 * are its listing (name, `Config.Image`, image id, state, labels), so a thousand containers cost
 * one listing instead of a thousand inspects (issue 29). Images are still inspected, each once
 * (inventory-sync.ts): their RepoDigests and platform are what the registry check compares.
 * A container the listing did not show is inspected as before.
 */
export function withListedDetails(host: DockerHost): DockerHost {
  let listed = new Map<string, DockerContainerDetails>();
  return {
    endpoint: host.endpoint,
    ping: () => host.ping(),
    async listContainers(all) {
      const summaries = await host.listContainers(all);
      // What an inspect would say of them but the listing cannot: left empty, as the output never shows it.
      listed = new Map(summaries.map((summary) => [summary.id, { ...summary, env: [], restartCount: 0 }]));
      return summaries;
    },
    inspectContainer: (id) => {
      const details = listed.get(id);
      return details ? Promise.resolve(details) : host.inspectContainer(id);
    },
    inspectImage: (id) => host.inspectImage(id),
    subscribeEvents: (handlers) => host.subscribeEvents(handlers),
    logs: (id, options, signal) => host.logs(id, options, signal),
    start: (id) => host.start(id),
    stop: (id) => host.stop(id),
    restart: (id) => host.restart(id),
    remove: (id) => host.remove(id),
    stats: (id) => host.stats(id),
    close: () => host.close(),
  };
}
