import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { Aedes, type AuthenticateError } from 'aedes';

export interface TestBroker {
  /** `mqtt://127.0.0.1:PORT`. */
  url: string;
  close(): Promise<void>;
}

/**
 * A real MQTT broker (aedes, in process) on 127.0.0.1. With `account`, a client must present that
 * user and password; anything else is refused with CONNACK 4 (bad user name or password).
 */
export async function startMqttBroker(account?: { user: string; password: string }): Promise<TestBroker> {
  const broker = await Aedes.createBroker({
    authenticate(_client, username, password, done) {
      if (!account || (username === account.user && password?.toString() === account.password)) return done(null, true);
      const error = Object.assign(new Error('Bad username or password'), { returnCode: 4 }) as AuthenticateError;
      return done(error, false);
    },
  });
  const server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
