/**
 * Users, credentials and clients for the security suites: basic users with an argon2id hash, a
 * TOTP secret and recovery codes, an RFC 6238 implementation independent of the hub's, and hubs
 * whose requests can come from several client addresses (real loopback source addresses on a
 * socket; X-Forwarded-For through the Node address resolver in memory).
 */
import { createHmac } from 'node:crypto';
import { argon2id } from '@noble/hashes/argon2.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { nodeClientAddress } from '../../hub/src/adapter/node/node-connection';
import type { HubInput } from '../../hub/src/compose-hub';
import type { Environment } from '../../shared/config/env-source';
import { createMemoryHub, createServerHub, type HubClient, jsonInit } from '../support/hub-harness';

export const PASSWORD = 'correct horse battery staple';
export const BOB_PASSWORD = 'bob-Pa55word-unique';
export const TOTP_SECRET = 'KRSXG5CTMVRXEZLUKN2XAZLDOJSXIZLU';
export const RECOVERY_CODES = ['rc-alpha-7a1f3c', 'rc-bravo-92be0d', 'rc-charlie-5d44e1'];

export function phc(password: string): string {
  const salt = new TextEncoder().encode('fixture-salt-16b');
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');
  const hash = argon2id(password, salt, { t: 1, m: 64, p: 1, dkLen: 32 });
  return `$argon2id$v=19$m=64,t=1,p=1$${b64(salt)}$${b64(hash)}`;
}
export const ALICE_HASH = phc(PASSWORD);
export const BOB_HASH = phc(BOB_PASSWORD);

/** alice: password only. bob: password plus TOTP or a recovery code. */
export const USERS_ENV: Environment = {
  DD_AUTH_BASIC_ALICE_USER: 'alice',
  DD_AUTH_BASIC_ALICE_HASH: ALICE_HASH,
  DD_AUTH_BASIC_BOB_USER: 'bob',
  DD_AUTH_BASIC_BOB_HASH: BOB_HASH,
  DD_AUTH_BASIC_BOB_TOTP: TOTP_SECRET,
  DD_AUTH_BASIC_BOB_RECOVERY: RECOVERY_CODES.join(','),
};

export function base32Decode(text: string): Buffer {
  let bits = '';
  for (const char of text) bits += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(char).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)?.map((byte) => Number.parseInt(byte, 2)) ?? []);
}

/** RFC 6238 (SHA-1, 30 s, 6 digits), computed with node:crypto rather than the hub's code. */
export function totp(at: number, secret = TOTP_SECRET): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = (mac[19] as number) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

export const sessionIdOf = (response: Response): string | undefined =>
  /dd\.sid=([a-f0-9]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
export const cookieHeader = (sessionId: string): Record<string, string> => ({ cookie: `dd.sid=${sessionId}` });

export type Mode = 'memory' | 'server';
export const MODES: readonly Mode[] = ['memory', 'server'];

/** A hub whose requests can come from a chosen client address. */
export interface AddressedHub {
  mode: Mode;
  client: HubClient;
  /** A request from this client (a loopback address such as 127.0.0.2). */
  from(address: string, path: string, init?: RequestInit): Promise<Response>;
  /** The default client (127.0.0.1). */
  request(path: string, init?: RequestInit): Promise<Response>;
  login(body: Record<string, unknown>, address?: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * On a socket, each client is a real source address (every 127.0.0.0/8 address is this machine on
 * Linux), so nothing has to be trusted. In memory there is no socket: the hub resolves the
 * address the way Node does behind one trusted proxy (DD_SERVER_TRUSTPROXY=1, X-Forwarded-For).
 */
export async function startAddressedHub(
  mode: Mode,
  env: Environment = {},
  deps: Pick<HubInput, 'now' | 'signInWait'> = {},
): Promise<AddressedHub> {
  const agents = new Map<string, Agent>();
  let client: HubClient;
  let from: AddressedHub['from'];
  if (mode === 'memory') {
    client = await createMemoryHub(
      { ...env, DD_SERVER_TRUSTPROXY: '1' },
      { clientAddress: nodeClientAddress(1), ...deps },
    );
    from = (address, path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('x-forwarded-for', address);
      return client.request(path, { ...init, headers });
    };
  } else {
    client = await createServerHub(env, deps);
    from = async (address, path, init = {}) => {
      let agent = agents.get(address);
      if (!agent) {
        agent = new Agent({ localAddress: address });
        agents.set(address, agent);
      }
      return (await undiciFetch(`${client.url}${path}`, {
        ...(init as object),
        dispatcher: agent,
      })) as unknown as Response;
    };
  }
  return {
    mode,
    client,
    from,
    request: (path, init) => from('127.0.0.1', path, init),
    login: (body, address = '127.0.0.1') => from(address, '/api/v1/auth/login', jsonInit('POST', body)),
    async close() {
      await client.close();
      await Promise.all([...agents.values()].map((agent) => agent.close()));
    },
  };
}
