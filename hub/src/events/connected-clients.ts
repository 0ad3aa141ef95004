import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';

export interface ClientCredentials {
  clientId: string;
  clientToken: string;
}

/**
 * The UI clients with an open event stream, each with the secret token it was given in
 * dd:connected. The self-update ack (http-interface §4.13) proves with it that the caller is that client.
 * A client is known only while its stream is open.
 */
export interface ConnectedClients {
  register(): ClientCredentials;
  unregister(clientId: string): void;
  /** True only for an open client's exact token; compared in constant time. */
  verify(clientId: string, clientToken: string): Promise<boolean>;
  has(clientId: string): boolean;
  /** The clients open now: those a self-update's ack is bound to. */
  ids(): string[];
  readonly size: number;
}

const TOKEN_BYTES = 32;

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function createConnectedClients(): ConnectedClients {
  const tokens = new Map<string, string>();
  // Compared against for unknown ids too, so a miss costs the same hashing as a wrong token.
  const decoy = randomToken();
  return {
    register() {
      const credentials = { clientId: crypto.randomUUID(), clientToken: randomToken() };
      tokens.set(credentials.clientId, credentials.clientToken);
      return credentials;
    },
    unregister(clientId) {
      tokens.delete(clientId);
    },
    async verify(clientId, clientToken) {
      const expected = tokens.get(clientId);
      const equal = await timingSafeEqualText(expected ?? decoy, clientToken);
      return equal && expected !== undefined;
    },
    has: (clientId) => tokens.has(clientId),
    ids: () => [...tokens.keys()],
    get size() {
      return tokens.size;
    },
  };
}
