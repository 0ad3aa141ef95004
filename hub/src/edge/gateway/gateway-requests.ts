import * as v from 'valibot';
import { errorBody } from '../../http/http-error';
import type { GatewayLinks } from './gateway-links';
import { ClaimSchema, GATEWAY_PATHS, GatewayBatchSchema, KeyLookupSchema } from './gateway-messages';

const refuse = (status: number, message?: string) => Response.json(errorBody(status, message), { status });

/**
 * A gateway's request to the hub object (key lookups, name claims, batches), answered by its
 * links. The runtime routes GATEWAY_PATH_PREFIX here; the Worker never forwards it from outside.
 */
export async function answerGatewayRequest(links: GatewayLinks | undefined, request: Request): Promise<Response> {
  if (!links) return refuse(404, 'This hub has no edge gateways');
  if (request.method !== 'POST') return refuse(405);
  const body: unknown = await request.json().catch(() => undefined);
  switch (new URL(request.url).pathname) {
    case GATEWAY_PATHS.key: {
      const parsed = v.safeParse(KeyLookupSchema, body);
      return parsed.success ? Response.json(links.keyOf(parsed.output.keyId, parsed.output.gateway)) : refuse(400);
    }
    case GATEWAY_PATHS.claim: {
      const parsed = v.safeParse(ClaimSchema, body);
      return parsed.success
        ? Response.json(await links.claim(parsed.output.keyId, parsed.output.agentName))
        : refuse(400);
    }
    case GATEWAY_PATHS.batch: {
      const parsed = v.safeParse(GatewayBatchSchema, body);
      if (!parsed.success) return refuse(400, `Invalid gateway batch: ${parsed.issues[0]?.message ?? ''}`);
      return Response.json(await links.batch(parsed.output));
    }
    default:
      return refuse(404);
  }
}
