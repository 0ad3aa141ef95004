import { resolve } from 'node:path';
import { toBase64 } from '../../../shared/edge/sign-in';
import { agentNameFromHostname } from '../agent/agent-name';
import type { EdgeKey } from '../keys/edge-key';
import { writeNewKeyFile } from '../keys/key-file';
import type { AgentCommand } from './parse-args';

export interface Registration {
  keyFile: string;
  publicKey: string;
  keyId: string;
  /** The body of POST /api/v1/edge/keys. */
  body: { publicKey: string; label: string };
}

/** `keygen`: a new key file, and what an admin needs to register it. */
export async function runKeygen(
  command: Extract<AgentCommand, { command: 'keygen' }>,
  hostname: string,
): Promise<{ registration: Registration; text: string }> {
  const key = await writeNewKeyFile(command.keyFile, command.force);
  const label = command.name ?? agentNameFromHostname(hostname) ?? 'edge-agent';
  const registration = registrationOf(key, resolve(command.keyFile), label);
  return { registration, text: registrationText(registration, command.hub, command.name) };
}

export function registrationOf(key: EdgeKey, keyFile: string, label: string): Registration {
  const publicKey = toBase64(key.publicKey);
  return { keyFile, publicKey, keyId: key.keyId, body: { publicKey, label } };
}

/** The hub's base URL for the curl line: the http(s) form of --hub, without the edge path. */
function apiBase(hub: string | undefined): string {
  if (!hub) return 'https://HUB';
  try {
    const url = new URL(hub);
    const scheme = url.protocol === 'ws:' || url.protocol === 'http:' ? 'http:' : 'https:';
    return `${scheme}//${url.host}${url.pathname.replace(/\/api\/v1\/edge\/ws\/?$/, '').replace(/\/+$/, '')}`;
  } catch {
    return 'https://HUB';
  }
}

export function registrationText(
  registration: Registration,
  hub: string | undefined,
  name: string | undefined,
): string {
  const body = JSON.stringify(registration.body);
  return [
    `wrote a new Ed25519 key to ${registration.keyFile} (mode 0600; keep it secret)`,
    `public key: ${registration.publicKey}`,
    `key id:     ${registration.keyId}`,
    '',
    'An admin registers it on the hub (a signed-in admin, or an API key with the edge:manage scope):',
    `  POST /api/v1/edge/keys ${body}`,
    '',
    `  curl -X POST '${apiBase(hub)}/api/v1/edge/keys' \\`,
    `    -H 'Authorization: Bearer ddk_…' -H 'Content-Type: application/json' \\`,
    `    -d '${body}'`,
    '',
    `Then run: npm run agent -- --hub ${hub ?? 'wss://HUB'} --key ${registration.keyFile}${name ? ` --name ${name}` : ''}`,
    '',
  ].join('\n');
}
