import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import {
  EDGE_KEY_ID_PATTERN,
  type EdgeKey,
  EdgeKeyResourceSchema,
  RegisterEdgeKeyBodySchema,
  RegisteredEdgeKeySchema,
} from '../../../shared/schemas/edge-key';
import { parseEdgePublicKey } from '../edge/authorized-keys';
import type { EdgeSessions } from '../edge/edge-sessions';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { AuditStore } from '../store/audit-store';

/** The edge key registry of decisions §6 (scope edge:manage); registered only with DD_EXPERIMENTAL_EDGE on. */
/** Edge keys: registered and revoked through the edge sessions, which close a revoked key's sockets. */
export interface EdgeKeyRoutesDeps {
  edge: EdgeSessions;
  audit: Pick<AuditStore, 'append'>;
  logger: Logger;
}

export function registerEdgeKeyRoutes(api: RouteGroup, deps: EdgeKeyRoutesDeps): void {
  const { edge } = deps;
  const resource = (key: EdgeKey) => ({ ...key, agentNames: edge.keys.namesOf(key.keyId) });

  api.add(
    {
      method: 'post',
      path: '/edge/keys',
      access: 'edge:manage',
      tag: 'edge',
      summary: "Register an edge agent's Ed25519 public key (raw 32 bytes, base64)",
      body: RegisterEdgeKeyBodySchema,
      response: RegisteredEdgeKeySchema,
      successStatus: 201,
      statuses: { 400: 'Not the base64 of a 32-byte key', 409: 'This key is registered already' },
    },
    async (c, { body }) => {
      const parsed = parseEdgePublicKey(body.publicKey);
      if (!parsed)
        throw new HttpError(400, 'publicKey must be the base64 of a raw 32-byte Ed25519 public key', {
          field: 'publicKey',
        });
      const key = await edge.registerKey({ ...parsed, label: body.label });
      if (key === 'exists') {
        const existing = edge.keys.get(parsed.keyId);
        throw new HttpError(409, `The key ${parsed.keyId} is registered already`, {
          keyId: parsed.keyId,
          revoked: existing?.revokedAt != null,
        });
      }
      deps.logger.child('edge').info(`edge key ${key.keyId} registered`, { label: key.label });
      await deps.audit.append({
        action: 'edge-key-created',
        status: 'success',
        details: `edge key ${key.keyId} (${key.label}) registered`,
      });
      return c.json({ keyId: key.keyId, label: key.label, createdAt: key.createdAt }, 201);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/edge/keys',
      access: 'edge:manage',
      tag: 'edge',
      summary: 'Registered edge keys, newest first, revoked ones too (with revokedAt)',
      response: v.object({ data: v.array(EdgeKeyResourceSchema), total: v.number() }),
    },
    (c) => {
      const data = edge.keys.list().map(resource);
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/edge/keys/:keyId',
      access: 'edge:manage',
      tag: 'edge',
      summary:
        "Revoke an edge key: its live sessions are closed (4002) and its sign-ins refused; the agent's name stays bound to it",
      response: EdgeKeyResourceSchema,
      statuses: { 404: 'Unknown key' },
    },
    async (c) => {
      const keyId = c.req.param('keyId') ?? '';
      if (!EDGE_KEY_ID_PATTERN.test(keyId) || !edge.keys.get(keyId))
        throw new HttpError(404, `Unknown edge key ${keyId.slice(0, 40)}`);
      const wasRevoked = edge.keys.get(keyId)?.revokedAt != null;
      const key = (await edge.revokeKey(keyId)) as EdgeKey;
      if (!wasRevoked) {
        deps.logger.child('edge').warn(`edge key ${keyId} revoked`, { label: key.label });
        await deps.audit.append({
          action: 'edge-key-revoked',
          status: 'success',
          details: `edge key ${keyId} (${key.label}) revoked`,
        });
      }
      return c.json(resource(key));
    },
  );
}
