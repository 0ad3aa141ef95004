import { type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * A Teams Workflows webhook ("When a Teams webhook request is received"): `POST
 * /workflows/{id}/triggers/manual/paths/invoke?api-version=1&sp=…&sv=1.0&sig=<signature>`; the
 * flow takes a message whose attachments are Adaptive Cards and answers 202 Accepted. A wrong
 * signature answers 401 `{error: {code: "DirectApiAuthorizationRequired", message}}`; a body the
 * flow cannot read 400 `{error: {code: "InvalidRequestContent", message}}`.
 */
export function startTeamsServer(workflowId: string, signature: string): Promise<FixtureServer> {
  return startFixtureServer((request) => {
    if (request.method !== 'POST' || request.path !== `/workflows/${workflowId}/triggers/manual/paths/invoke`) {
      return {
        status: 404,
        body: { error: { code: 'WorkflowNotFound', message: 'The workflow could not be found.' } },
      };
    }
    if (request.query.get('sig') !== signature) {
      return {
        status: 401,
        body: {
          error: {
            code: 'DirectApiAuthorizationRequired',
            message: 'The request must be authenticated only by Shared Access scheme.',
          },
        },
      };
    }
    const body = request.json as
      | { type?: unknown; attachments?: { contentType?: unknown; content?: { type?: unknown; body?: unknown } }[] }
      | undefined;
    const card = body?.attachments?.[0];
    const valid =
      body?.type === 'message' &&
      card?.contentType === 'application/vnd.microsoft.card.adaptive' &&
      card.content?.type === 'AdaptiveCard' &&
      Array.isArray(card.content.body);
    if (!valid) {
      return {
        status: 400,
        body: {
          error: {
            code: 'InvalidRequestContent',
            message: "The input body for trigger 'manual' of type 'Request' did not match its schema definition.",
          },
        },
      };
    }
    return { status: 202 };
  });
}
