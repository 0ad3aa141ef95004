import { ConfigError } from '../../../shared/config/config-error';
import type { AgentDirectory } from '../agents/agent-directory';
import type { Capability, CapabilityJob } from '../capability';
import type { HubConfig } from '../config/hub-config';
import type { HubFoundation } from '../hub-foundation';
import type { HubInput } from '../hub-options';
import type { NotificationService } from '../notifications/notification-service';
import type { RegistryAccess } from '../registries/registries-capability';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import { pullAuthFor } from '../updates/pull-auth';
import type { Fleet } from '../watchers/fleet';
import { containerSbomSource } from './container-sbom-source';
import { createSbomService, type SbomService } from './sbom-service';
import { EXTERNAL_DIALECTS } from './scanners/external-dialects';
import { createExternalScanner, type ExternalScanner } from './scanners/external-scanner';
import { createSecurityService, type SecurityService } from './security-service';

export type SecurityCapabilityDeps = Pick<
  HubFoundation,
  'input' | 'config' | 'storage' | 'logger' | 'now' | 'publish'
> & {
  audit: AuditStore;
  containers: ContainerStore;
  settings: SettingsStore;
  notifications: NotificationService;
  registries: RegistryAccess | undefined;
  fleet: Fleet;
  agents: AgentDirectory;
};

/** Vulnerability scanning: the SBOMs of the containers' images, the OSV database, the scans, and the gate the updates pass. */
export function securityCapability(
  deps: SecurityCapabilityDeps,
): Capability<{ sbom: SbomService; security: SecurityService }> {
  const { input, config, storage, logger, now, settings, registries } = deps;
  const internetless = () => settings.get().internetlessMode;
  const sbom = createSbomService({ storage, logger: logger.child('sbom'), now });
  const security = createSecurityService({
    config: config.security,
    storage,
    logger,
    now,
    audit: deps.audit,
    publish: deps.publish,
    notifications: deps.notifications,
    containers: deps.containers,
    // The built-in generator reads the running image and the pulled candidate through their host.
    sbom:
      input.security?.sbom ??
      containerSbomSource({
        hosts: { fleet: deps.fleet, agents: deps.agents },
        sbom,
        pullAuth: (reference) => pullAuthFor({ registries }, reference),
      }),
    internetless,
    // A download that stalls must not hold the refresh for ever (the next one would never start).
    fetch: input.security?.fetch ?? ((url) => fetch(url, { signal: AbortSignal.timeout(600_000) })),
    readFile: input.security?.readFile,
    external: externalScannerOf(config.security.scanner, input, internetless),
  });
  const { osv } = config.security;
  const jobs: CapabilityJob[] = [];
  if (osv.url !== undefined && osv.refreshHours > 0)
    jobs.push({
      name: 'security.osv-refresh',
      run: () => security.refreshDatabase(),
      recurrence: { everyMs: osv.refreshHours * 3_600_000, jitterMs: 60_000 },
    });
  // Scheduled scans of the whole fleet, as POST /containers/scan-all runs them (joined when one runs).
  if (config.security.scanHours > 0)
    jobs.push({
      name: 'security.scan-all',
      run: () => security.scanAllToEnd(),
      recurrence: { everyMs: config.security.scanHours * 3_600_000, jitterMs: 300_000 },
    });
  return {
    parts: { sbom, security },
    load: () => security.load(),
    // The OSV database is imported in the background (a download must not hold the start), and refreshed.
    start: () => security.start(),
    jobs,
    stop: () => security.stop(),
  };
}

/**
 * DD_SECURITY_SCANNER=trivy|grype: the tool runs as a process, which only the Node entry hands in;
 * elsewhere (Workers: no processes, no PATH) start-up is refused naming the variable.
 */
function externalScannerOf(
  name: HubConfig['security']['scanner'],
  input: HubInput,
  internetless: () => boolean,
): ExternalScanner | undefined {
  if (name !== 'trivy' && name !== 'grype') return undefined;
  const process = input.security?.scannerProcess;
  if (!process)
    throw new ConfigError(
      'DD_SECURITY_SCANNER',
      `${name} runs as a process on the hub's host, which the ${input.runtime} runtime cannot start; use osv (docs/security-scanning.md)`,
    );
  return createExternalScanner({
    dialect: EXTERNAL_DIALECTS[name],
    process,
    internetless,
    now: input.now ?? Date.now,
    toolVersion: input.version,
  });
}
