// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import type { NotificationRuleId } from '../../../shared/schemas/notification-rule';
import type { DefaultTemplates } from './notification-provider';

const VERSIONS = '${container.updateKind.localValue} to ${container.updateKind.remoteValue}';
const LINK = '${container.result.link ? "\\n" + container.result.link : ""}';
/** Present only when the update waits for an approval (docs/approvals.md). */
const APPROVAL =
  '${container.approval ? "\\nWaits for approval " + container.approval.id + " (" + container.approval.state + ")" : ""}';
const IMAGE =
  '${container.image.registry.url ? container.image.registry.url + "/" : ""}${container.image.name}:${container.image.tag.value}';

/**
 * The core's template of each event, used where neither the rule (PATCH templates) nor the
 * trigger (SIMPLETITLE, …, update-available only) says otherwise. Variables: `container.*` (the
 * container as the API shows it, and for update-available `container.approval` {id, state} when the
 * update waits for one), `containers` (the batch), `event`, `trigger.id`, and per event
 * `fromVersion`, `toVersion`, `error`, `agent.name`, `agent.reason`, `security.critical`, `security.high`.
 */
export const CORE_DEFAULT_TEMPLATES: Readonly<Record<NotificationRuleId, DefaultTemplates>> = {
  'update-available': {
    simpleTitle: 'New ${container.updateKind.kind} found for container ${container.name}',
    simpleBody:
      'Container ${container.name} running with ${container.updateKind.kind} ${container.updateKind.localValue}' +
      ` can be updated to \${container.updateKind.kind} \${container.updateKind.remoteValue}${LINK}${APPROVAL}`,
    batchTitle: '${containers.length} updates available',
  },
  'update-applied': {
    simpleTitle: 'Container ${container.name} updated',
    simpleBody:
      'Container ${container.name} was updated${fromVersion ? " from " + fromVersion : ""}${toVersion ? " to " + toVersion : ""}',
    batchTitle: '${containers.length} containers updated',
  },
  'update-failed': {
    simpleTitle: 'Update of container ${container.name} failed',
    simpleBody:
      'The update of ${container.name}${toVersion ? " to " + toVersion : ""} failed${error ? ": " + error : ""}',
    batchTitle: '${containers.length} updates failed',
  },
  'security-alert': {
    simpleTitle: 'Security alert for container ${container.name}',
    simpleBody: `Vulnerabilities in ${IMAGE}: \${security.critical ?? 0} critical, \${security.high ?? 0} high`,
    batchTitle: '${containers.length} containers with security alerts',
  },
  'agent-disconnect': {
    simpleTitle: 'Agent ${agent.name} disconnected',
    simpleBody: 'The agent ${agent.name} lost its connection to the hub${agent.reason ? ": " + agent.reason : ""}',
    batchTitle: 'Agents disconnected',
  },
  'agent-reconnect': {
    simpleTitle: 'Agent ${agent.name} reconnected',
    simpleBody: 'The agent ${agent.name} is connected to the hub again',
    batchTitle: 'Agents reconnected',
  },
  'container-unhealthy': {
    simpleTitle: 'Container ${container.name} is unhealthy',
    simpleBody: `The health check of \${container.name} (${IMAGE}) reports unhealthy`,
    batchTitle: '${containers.length} containers unhealthy',
  },
  'maturity-cleared': {
    simpleTitle: 'Update of container ${container.name} is mature',
    simpleBody: `The \${container.updateKind.kind} update of \${container.name} from ${VERSIONS} reached its minimum age and can be applied${LINK}`,
    batchTitle: '${containers.length} updates matured',
  },
};
