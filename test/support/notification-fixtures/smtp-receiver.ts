import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  /** The authenticated user, if any. */
  user: string | undefined;
  /** Whether the session was TLS (implicit or after STARTTLS) when the mail arrived. */
  secure: boolean;
  /** Header names in lower case, values unfolded and decoded from RFC 2047 encoded words. */
  headers: Record<string, string>;
  /** The text body, decoded from quoted-printable or base64. */
  text: string;
}

export interface SmtpReceiverOptions {
  /** Implicit TLS (SMTPS); otherwise plain with STARTTLS offered (smtp-server's own self-signed certificate). */
  implicitTls?: boolean;
  /** No STARTTLS, and AUTH allowed in the clear (a bare local relay). */
  plainOnly?: boolean;
  /** AUTH PLAIN/LOGIN against this account; no authentication when absent. */
  account?: { user: string; pass: string };
}

export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  /** How many times a client tried to authenticate. */
  authAttempts: number;
  /** The next RCPT TO, or the next DATA, is answered with this SMTP reply. */
  rejectNext(stage: 'rcpt' | 'data', responseCode: number, message: string): void;
  close(): Promise<void>;
}

/** A real SMTP server (npm `smtp-server`) on 127.0.0.1 that keeps what it receives. */
export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const rejections: { stage: 'rcpt' | 'data'; error: Error }[] = [];
  const takeRejection = (stage: 'rcpt' | 'data') => {
    const index = rejections.findIndex((rejection) => rejection.stage === stage);
    return index < 0 ? null : (rejections.splice(index, 1)[0]?.error ?? null);
  };
  const receiver: SmtpReceiver = {
    port: 0,
    mails,
    authAttempts: 0,
    rejectNext: (stage, responseCode, message) =>
      rejections.push({ stage, error: Object.assign(new Error(message), { responseCode }) }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    secure: options.implicitTls ?? false,
    ...(options.plainOnly && { disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
    authOptional: options.account === undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      receiver.authAttempts++;
      if (auth.username === options.account?.user && auth.password === options.account?.pass)
        return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(_address, _session, callback) {
      callback(takeRejection('rcpt'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const rejection = takeRejection('data');
        if (rejection) return callback(rejection);
        mails.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: session.user as string | undefined,
          secure: session.secure,
          ...parseMessage(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.server.address() as AddressInfo).port;
  return receiver;
}

function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headerBlock = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of headerBlock.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  const body = raw.slice(split + 4).replace(/\r\n$/, '');
  const encoding = headers['content-transfer-encoding']?.toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? Buffer.from(decodeQuotedPrintable(body), 'latin1').toString('utf8')
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

function decodeQuotedPrintable(body: string): string {
  return body
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** RFC 2047 `=?UTF-8?Q?…?=` and `=?UTF-8?B?…?=` words. */
function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_, kind: string, data: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(decodeQuotedPrintable(data.replace(/_/g, ' ')), 'latin1').toString('utf8'),
  );
}
