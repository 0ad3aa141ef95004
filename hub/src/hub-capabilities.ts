import type { UpdateOperation } from '../../shared/update-engine';
import { agentsCapability } from './agents/agents-capability';
import { approvalsCapability } from './approvals/approvals-capability';
import { authCapability } from './auth/auth-capability';
import { CapabilityRegistry, lateBinding } from './capability';
import { configurationCapability } from './config/configuration-capability';
import { hubFoundation } from './hub-foundation';
import type { HubInput } from './hub-options';
import { iconsCapability } from './icons/icons-capability';
import type { TemplateSecurity } from './notifications/notification-service';
import { notificationsCapability } from './notifications/notifications-capability';
import { registriesCapability } from './registries/registries-capability';
import { releaseNotesCapability } from './release-notes/release-notes-capability';
import { rolloutsCapability } from './rollouts/rollouts-capability';
import { securityCapability } from './security/security-capability';
import { templateSecurity } from './security/template-security';
import { storesCapability } from './store/stores-capability';
import { updatePoliciesCapability } from './updates/update-policies-capability';
import { updatesCapability } from './updates/updates-capability';
import { fleetCapability } from './watchers/fleet-capability';
import type { WatcherFactoryDeps } from './watchers/watcher-factory';
import { watchersCapability } from './watchers/watchers-capability';

/**
 * Every capability of the hub, registered once each in dependency order: each is given the parts
 * of those above it (the compiler refuses anything else), and the hub runs their lifecycles in
 * this order (drain and stop in reverse). A new capability is one line here, where it belongs.
 */
export function composeCapabilities(input: HubInput) {
  // The back-edges of the graph (docs/architecture.md "Late bindings"): a capability calls one
  // registered after it. Each is bound below, before anything can call it.
  const installUpdate = lateBinding<[containerId: string], Promise<void>>('the Home Assistant Install command');
  const runApproved = lateBinding<[containerId: string], Promise<UpdateOperation>>('an approved update');
  const securityOf = lateBinding<[containerId: string], TemplateSecurity | undefined>("a container's last scan");
  const autoUpdate = lateBinding<Parameters<WatcherFactoryDeps['autoUpdate']>, Promise<void>>('the automatic updates');
  const late = {
    installUpdate: installUpdate.call,
    runApproved: runApproved.call,
    securityOf: securityOf.call,
    autoUpdate: autoUpdate.call,
  };
  const capabilities = new CapabilityRegistry({ ...hubFoundation(input), ...late })
    .add(storesCapability)
    .add(authCapability)
    .add(iconsCapability)
    .add(registriesCapability)
    .add(approvalsCapability)
    .add(releaseNotesCapability)
    .add(fleetCapability)
    .add(notificationsCapability)
    .add(watchersCapability)
    .add(agentsCapability)
    .add(securityCapability)
    .add(updatesCapability)
    .add(rolloutsCapability)
    .add(updatePoliciesCapability)
    .add(configurationCapability);
  const { updates, security, autoUpdates } = capabilities.parts;
  installUpdate.bind(async (containerId) => {
    await updates.requestUpdate(containerId, { source: 'mqtt' });
  });
  runApproved.bind((containerId) => updates.requestUpdate(containerId, { source: 'api' }));
  securityOf.bind((containerId) => templateSecurity(security.scans.get(containerId)));
  autoUpdate.bind((changes) => autoUpdates.inventoryApplied(changes));
  return capabilities;
}

/** The hub's long-lived parts, for its runtime entry, tests, benchmarks and composeHttp: no capability receives this. */
export type HubParts = ReturnType<typeof composeCapabilities>['parts'];
