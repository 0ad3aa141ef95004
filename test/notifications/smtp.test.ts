import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpProvider } from '../../hub/src/adapter/node/notifications/smtp';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';
import { type SmtpReceiver, startSmtpReceiver } from '../support/notification-fixtures/smtp-receiver';

const ACCOUNT = { user: 'hub@example.com', pass: 'Sm7p-Pa55word!' };
const ADDRESSES = { from: 'dockwatch <hub@example.com>', to: 'ops@example.com, lead@example.com' };

describe('smtp', () => {
  let starttls: SmtpReceiver;
  let implicit: SmtpReceiver;
  let plain: SmtpReceiver;
  beforeAll(async () => {
    [starttls, implicit, plain] = await Promise.all([
      startSmtpReceiver({ account: ACCOUNT }),
      startSmtpReceiver({ implicitTls: true, account: ACCOUNT }),
      startSmtpReceiver({ plainOnly: true, account: ACCOUNT }),
    ]);
  });
  afterAll(() => Promise.all([starttls.close(), implicit.close(), plain.close()]));

  const keys = (receiver: SmtpReceiver, extra: Record<string, string> = {}) => ({
    host: '127.0.0.1',
    port: String(receiver.port),
    user: ACCOUNT.user,
    pass: ACCOUNT.pass,
    ...ADDRESSES,
    tlsverify: 'false', // smtp-server's own self-signed certificate
    ...extra,
  });

  it('upgrades with STARTTLS, authenticates and delivers subject, body and recipients', async () => {
    const transport = buildTransport(smtpProvider, keys(starttls));
    await transport.send(sampleMessage(), deliveryContext());
    await transport.close?.();
    const mail = starttls.mails.at(-1);
    expect(mail).toMatchObject({
      envelopeFrom: 'hub@example.com',
      envelopeTo: ['ops@example.com', 'lead@example.com'],
      user: ACCOUNT.user,
      secure: true,
    });
    expect(mail?.headers.subject).toBe('New version for web');
    expect(mail?.headers.from).toBe('dockwatch <hub@example.com>');
    expect(mail?.headers.to).toBe('ops@example.com, lead@example.com');
    expect(mail?.headers['x-dockwatch-event']).toBe('update-available');
    expect(mail?.text).toBe('web: nginx 1.25.3 → 1.25.4 (patch) <b>&');
  });

  it('speaks TLS from the first byte with TLS=true', async () => {
    await buildTransport(smtpProvider, keys(implicit, { tls: 'true' })).send(
      sampleMessage({ title: 'Übersicht: 3 Updates' }),
      deliveryContext(),
    );
    expect(implicit.mails.at(-1)).toMatchObject({ secure: true, user: ACCOUNT.user });
    expect(implicit.mails.at(-1)?.headers.subject).toBe('Übersicht: 3 Updates');
  });

  it('never sends the password to a server without STARTTLS, unless STARTTLS=off', async () => {
    const attempts = plain.authAttempts;
    const refused = await deliveryError(
      buildTransport(smtpProvider, keys(plain)).send(sampleMessage(), deliveryContext()),
    );
    // The server answers STARTTLS with 500: permanent, until the configuration changes.
    expect(refused).toMatchObject({ status: 500, retryable: false });
    expect(refused.message).toMatch(/^smtp\.test: Error upgrading connection with STARTTLS/);
    expect(plain.authAttempts).toBe(attempts);
    expect(plain.mails).toHaveLength(0);
    await buildTransport(smtpProvider, keys(plain, { starttls: 'off' })).send(sampleMessage(), deliveryContext());
    expect(plain.mails.at(-1)).toMatchObject({ secure: false, user: ACCOUNT.user });
  });

  it('checks the certificate by default', async () => {
    const error = await deliveryError(
      buildTransport(smtpProvider, keys(starttls, { tlsverify: 'true' })).send(sampleMessage(), deliveryContext()),
    );
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^smtp\.test: .*certificate/i);
  });

  it('fails a wrong password for good (535) without quoting it', async () => {
    const wrong = 'Wr0ng-Pa55word!';
    const error = await deliveryError(
      buildTransport(smtpProvider, keys(starttls, { pass: wrong })).send(sampleMessage(), deliveryContext()),
    );
    expect(error).toMatchObject({ status: 535, retryable: false });
    expect(error.message).toMatch(/^smtp\.test: Invalid login: 535/);
    expectNoSecrets(error, [wrong, ACCOUNT.pass]);
  });

  it('retries a 4xx reply, not a 5xx one', async () => {
    const transport = buildTransport(smtpProvider, keys(starttls));
    starttls.rejectNext('rcpt', 550, 'No such user here');
    starttls.rejectNext('rcpt', 550, 'No such user here');
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 550,
      retryable: false,
    });
    starttls.rejectNext('data', 451, 'Try again later');
    const transient = await deliveryError(transport.send(sampleMessage(), deliveryContext()));
    expect(transient).toMatchObject({ status: 451, retryable: true });
    expect(transient.message).toContain('Try again later');
  });

  it('retries when the server is down', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const error = await deliveryError(
      buildTransport(smtpProvider, { host: '127.0.0.1', port: String(port), ...ADDRESSES }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(error).toMatchObject({ retryable: true, status: undefined });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('checks its keys', () => {
    expect(keyIssues(smtpProvider, { host: 'mail.example.com', to: 'a@example.com' })).toEqual({ from: 'is required' });
    expect(keyIssues(smtpProvider, { host: 'mail.example.com', from: 'hub', to: 'a@example.com' })).toEqual({
      from: 'must be an address, name@host or Name <name@host>',
    });
    expect(
      keyIssues(smtpProvider, { host: 'mail.example.com', from: 'a@b.c', to: 'a@example.com;b@example.com' }),
    ).toEqual({
      to: 'must be addresses, comma-separated',
    });
    expect(keyIssues(smtpProvider, { host: 'mail.example.com', from: 'a@b.c', to: 'a@b.c', user: 'u' })).toEqual({
      pass: 'USER and PASS go together',
    });
    expect(
      keyIssues(smtpProvider, {
        host: 'mail.example.com',
        from: 'a@b.c',
        to: 'a@b.c',
        tls: 'true',
        starttls: 'required',
      }),
    ).toHaveProperty('starttls');
    expect(smtpProvider.secretKeys).toEqual(['pass']);
  });
});
