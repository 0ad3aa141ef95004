import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDockerHost, createPodmanHost } from '../../../../edge-agent/src/docker';
import type { ListingPrefetch } from '../../../../edge-agent/src/docker/listing-prefetch';
import { ConfigError } from '../../../../shared/config/config-error';
import type { Environment } from '../../../../shared/config/env-source';
import { loadWatcherConfigs, type WatcherConfig } from '../../../../shared/docker/watcher-config';
import { errorMessage } from '../../../../shared/error-message';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../../shared/logging/logger';
import type { SourceFiles } from '../../../../shared/sources/source-files';
import { CHECK_EXIT, exitCodeOf, formatTable, jsonReport, problemLines } from '../../checks/check-report';
import { withListedDetails } from '../../checks/listed-details-host';
import { type OneShotSource, runOneShotCheck } from '../../compose-check';
import { type HubConfig, loadHubConfig } from '../../config/hub-config';
import { type LoadedRegistryProviders, loadRegistryProvidersFromEnv } from '../../registries/load-registry-providers';
import { createFileSourceHost } from '../../sources/file-source-host';
import { fileSourceWatcherConfig } from '../../sources/file-source-watcher';
import { loadNodeConfiguration } from './node-config-file';
import { nodeSourceFiles } from './node-source-files';
import { createOneShotRegistryFetchFactory } from './registry-fetch';

export const CHECK_HELP = `Usage: dockwatch check [options] [IMAGE...]

Checks images for newer versions once and prints what it found; no server, nothing stored.
  npm run check -- [options]            from a checkout
  node dist/cli.mjs check [options]     from the build
  docker run --rm -v /var/run/docker.sock:/var/run/docker.sock dockwatch/hub check [options]

Sources (any number, checked together: one registry lookup per distinct reference):
  IMAGE...               image references named here, e.g. nginx:1.25 ghcr.io/acme/api:2.1.0
  --docker               the local Docker (or Podman) socket: DOCKER_HOST, else /var/run/docker.sock
  --file PATH            an image list, YAML or JSON (docs/sources.md "Image list"); repeatable
  --dir PATH             every Dockerfile FROM and compose image: under PATH; repeatable
  (none of these)        the configured watchers: DD_WATCHER_* (and DD_CONFIG_FILE), else --docker

Options:
  --json                 one JSON document on stdout (docs/sources.md "JSON output")
  --all                  with --docker: stopped containers too
  -h, --help             this text

Output: a table (NAME, IMAGE, CURRENT, CANDIDATE, KIND, AGE), updates first. KIND is major,
minor, patch, prerelease, tag or digest for an update; error when the registry check failed.
Problems (unreadable files, syntax errors with file:line, registry errors) go to stderr, and
progress too when the check takes longer than a second.

Configuration: the hub's variables. DD_REGISTRY_* credentials (and <NAME>__FILE secrets),
DD_REGISTRY_INSECURE, DD_REGISTRY_TIMEOUT; dd.* labels of containers and dd.* keys of image lists
and compose labels (dd.watch, dd.tag.include, dd.tag.exclude, dd.tag.transform, dd.watch.digest,
dd.registry.lookup.image, dd.updatePolicy.*).

Exit codes:
  0   nothing newer
  1   updates available
  2   errors: a source could not be read, a file had problems, or a registry check failed
      (errors win over updates: the check could not look everywhere)
  64  usage error (an unknown option)
  78  configuration error (a DD_* variable), with the variable named on stderr
`;

export interface CheckIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal: progress then rewrites one line. */
  stderrIsTty: boolean;
}

const processIo: CheckIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTty: process.stderr.isTTY === true,
};

const readTextFile = (path: string) => readFileSync(path, 'utf8');

/** Images named on the command line, as a one-file image list: the same parser, the same problems. */
function commandLineImages(images: readonly string[]): SourceFiles {
  const text = images.map((image) => `- ${JSON.stringify(image)}`).join('\n');
  return { list: async () => ['command line'], read: async () => text };
}

function sourcesOf(
  values: { docker?: boolean; file?: string[]; dir?: string[]; all?: boolean; json?: boolean },
  images: readonly string[],
  env: Environment,
  config: HubConfig,
  now: () => number,
  listing: ListingPrefetch | undefined,
): OneShotSource[] {
  const explicit =
    values.docker || (values.file?.length ?? 0) > 0 || (values.dir?.length ?? 0) > 0 || images.length > 0;
  const sources: OneShotSource[] = [];
  const fileSource = (type: 'file' | 'dockerfile', name: string, path: string, files: SourceFiles) => {
    const sourceConfig = { type, name, path, cron: '0 * * * *', jitterSeconds: 0, watchByDefault: true };
    const host = createFileSourceHost({ sourceId: `${type}.${name}`, type, files, now });
    sources.push({ type, config: fileSourceWatcherConfig(sourceConfig), host });
  };
  let dockerWatchers: WatcherConfig[] = [];
  if (!explicit) {
    dockerWatchers = config.watchers;
    for (const source of config.fileSources) fileSource(source.type, source.name, source.path, nodeSourceFiles(source));
  } else if (values.docker) {
    // DD_WATCHER_* do not apply to --docker: it is the local socket, as the Docker CLI finds it.
    dockerWatchers = loadWatcherConfigs(new Map(env.DOCKER_HOST ? [['DOCKER_HOST', env.DOCKER_HOST]] : []));
  }
  for (const watcher of dockerWatchers) {
    const host = createDockerHost({ ...watcher.endpoint, ...(values.docker && { listing }) });
    // The table shows nothing only an inspect gives; --json shows each container's env and health.
    sources.push({
      type: 'docker',
      config: { ...watcher, watchAll: values.all ?? watcher.watchAll },
      host: values.json ? host : withListedDetails(host),
    });
  }
  // Podman watchers of the configuration (docs/sources.md "Podman"): their pods and policy labels as on the hub.
  for (const watcher of explicit ? [] : config.podmanWatchers)
    sources.push({
      type: 'podman',
      config: { ...watcher, watchAll: values.all ?? watcher.watchAll },
      host: createPodmanHost(watcher.endpoint),
    });
  for (const [index, path] of (values.file ?? []).entries())
    fileSource('file', `file-${index + 1}`, path, nodeSourceFiles({ type: 'file', path }));
  for (const [index, path] of (values.dir ?? []).entries())
    fileSource('dockerfile', `dir-${index + 1}`, path, nodeSourceFiles({ type: 'dockerfile', path }));
  if (images.length > 0) fileSource('file', 'command-line', 'command line', commandLineImages(images));
  return sources;
}

/** Progress on stderr once the check has taken a second: registry requests so far, sources done. */
function startProgress(io: CheckIo, counts: { requests: number; sourcesDone: number; sources: number }) {
  const started = Date.now();
  let shown = false;
  const line = () =>
    `dockwatch check: ${counts.sourcesDone}/${counts.sources} sources, ${counts.requests} registry requests, ${((Date.now() - started) / 1000).toFixed(0)} s`;
  const timer = setInterval(
    () => {
      if (io.stderrIsTty) io.stderr(`\r${line()}\u001b[K`);
      else if (!shown || (Date.now() - started) % 10_000 < 1_000) io.stderr(`${line()}\n`);
      shown = true;
    },
    io.stderrIsTty ? 250 : 1_000,
  );
  return () => {
    clearInterval(timer);
    if (shown && io.stderrIsTty) io.stderr('\r\u001b[K');
  };
}

/**
 * `dockwatch check` (docs/sources.md "One command"). Answers the exit code; prints through `io`.
 */
export async function runCheckCommand(
  args: readonly string[],
  env: Environment,
  io: CheckIo = processIo,
  /** `--docker`'s listing, asked for before this module loaded (listing-prefetch.ts). */
  listing?: ListingPrefetch,
): Promise<number> {
  try {
    return await checkCommand(args, env, io, listing);
  } finally {
    listing?.discard(); // a no-op once its answer came
  }
}

async function checkCommand(
  args: readonly string[],
  env: Environment,
  io: CheckIo,
  listing: ListingPrefetch | undefined,
): Promise<number> {
  let parsed: ReturnType<typeof parseCheckArgs>;
  try {
    parsed = parseCheckArgs(args);
  } catch (error) {
    io.stderr(`dockwatch check: ${errorMessage(error)}\nTry dockwatch check --help\n`);
    return CHECK_EXIT.usage;
  }
  if (parsed.values.help) {
    io.stdout(CHECK_HELP);
    return 0;
  }
  const now = () => Date.now();
  let sources: OneShotSource[];
  let registries: LoadedRegistryProviders;
  let registryTimeoutMs: number;
  let thresholdDays: number;
  const counts = { requests: 0, sourcesDone: 0, sources: 0 };
  try {
    const configuration = loadNodeConfiguration(env, readTextFile);
    const config = loadHubConfig(configuration.env, readTextFile);
    thresholdDays = config.ui.maturityThresholdDays;
    sources = sourcesOf(parsed.values, parsed.positionals, configuration.env, config, now, listing);
    registries = await loadRegistryProvidersFromEnv(configuration.env, readTextFile, {
      now,
      fetch: (input, init) => fetch(input, init),
    });
    registryTimeoutMs = config.registry.timeoutMs;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`dockwatch check: configuration error: ${error.message}\n`);
      return CHECK_EXIT.configuration;
    }
    throw error;
  }
  counts.sources = sources.length;
  const stopProgress = startProgress(io, counts);
  const result = await runOneShotCheck(sources, {
    registries,
    registryFetch: createOneShotRegistryFetchFactory(),
    registryTimeoutMs,
    thresholdDays,
    logger: createLogger({ level: 'error', sink: silentSink, ring: createLogRing(1, false) }),
    now,
    onRegistryRequest: () => {
      counts.requests += 1;
    },
    onSourceDone: () => {
      counts.sourcesDone += 1;
    },
  }).finally(stopProgress);
  for (const line of problemLines(result)) io.stderr(`${line}\n`);
  if (parsed.values.json) io.stdout(`${JSON.stringify(jsonReport(result, now()), null, 2)}\n`);
  else io.stdout(`${formatTable(result.records, now())}\n`);
  return exitCodeOf(result);
}

function parseCheckArgs(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      docker: { type: 'boolean' },
      all: { type: 'boolean' },
      file: { type: 'string', multiple: true },
      dir: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
