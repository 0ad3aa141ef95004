import nodemailer from 'nodemailer';
import * as v from 'valibot';
import { DeliveryError, type NotificationProviderDefinition } from '../../../notifications/notification-provider';
import {
  boolean,
  choice,
  integer,
  providerKeys,
  requireWith,
  text,
} from '../../../notifications/providers/provider-keys';
import { scrubSecrets, secretFragments } from '../../../notifications/providers/secret-fragments';
import { abortable } from './abortable';

/** `name@host`, or `Display Name <name@host>`. */
const ADDRESS = /^([^<>\r\n]*<)?[^\s@<>,]+@[^\s@<>,]+>?$/;

const Keys = v.pipe(
  providerKeys({
    host: v.pipe(text(), v.regex(/^[\w.-]+$|^\[[\da-fA-F:.]+\]$/, 'must be a host name or an IP address')),
    /** 465 with TLS, else 587 (submission). */
    port: v.optional(integer(1, 65_535)),
    user: v.optional(text()),
    pass: v.optional(text()),
    from: v.pipe(text(), v.regex(ADDRESS, 'must be an address, name@host or Name <name@host>')),
    /** Comma-separated addresses. */
    to: v.pipe(
      text(),
      v.check(
        (value) => value.split(',').every((address) => ADDRESS.test(address.trim())),
        'must be addresses, comma-separated',
      ),
    ),
    /** Implicit TLS from the first byte (SMTPS, port 465). */
    tls: v.optional(boolean(), 'false'),
    /**
     * Without TLS: `required` refuses a server that does not offer STARTTLS, `opportunistic` upgrades
     * when offered, `off` never does. Default: `required` when USER is set (a password is never sent
     * in the clear unless asked for), `opportunistic` otherwise (local relays often lack TLS).
     */
    starttls: v.optional(choice(['required', 'opportunistic', 'off'])),
    /** Check the server's certificate (against the system CAs and NODE_EXTRA_CA_CERTS). */
    tlsverify: v.optional(boolean(), 'true'),
  }),
  requireWith('pass', (c) => (c.user === undefined) === (c.pass === undefined), 'USER and PASS go together'),
  requireWith(
    'starttls',
    (c) => !(c.tls && c.starttls !== undefined),
    'does not apply with TLS=true (the connection is TLS from the start)',
  ),
);
type SmtpConfig = v.InferOutput<typeof Keys>;

/** Bounds of one SMTP conversation, besides the delivery timeout (nodemailer cannot be aborted). */
const CONNECTION_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 30_000;

/**
 * `DD_NOTIFICATION_SMTP_<NAME>_*`: e-mail through an SMTP server, with nodemailer (its "SMTP
 * transport" docs: `host, port, secure, requireTLS, ignoreTLS, auth {user, pass}, tls
 * {rejectUnauthorized}`, and the error fields `code` and `responseCode`). Subject = title, plain
 * text body = body. SMTP reply codes say whether to retry (RFC 5321 §4.2.1): 4yz is transient,
 * 5yz permanent; a failure with no reply (connection, TLS, timeout) is retried.
 */
export const smtpProvider: NotificationProviderDefinition<SmtpConfig> = {
  type: 'smtp',
  keys: Keys,
  secretKeys: ['pass'],
  create(config, name) {
    const component = `smtp.${name}`;
    const secrets = secretFragments([config.pass]);
    const starttls = config.starttls ?? (config.user !== undefined ? 'required' : 'opportunistic');
    const transporter = nodemailer.createTransport({
      host: config.host,
      port: config.port ?? (config.tls ? 465 : 587),
      secure: config.tls,
      requireTLS: !config.tls && starttls === 'required',
      ignoreTLS: !config.tls && starttls === 'off',
      ...(config.user !== undefined && config.pass !== undefined && { auth: { user: config.user, pass: config.pass } }),
      tls: { rejectUnauthorized: config.tlsverify },
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      greetingTimeout: CONNECTION_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
    });
    const to = config.to.split(',').map((address) => address.trim());
    return {
      secrets,
      async send(message, context) {
        const sending = transporter.sendMail({
          from: config.from,
          to,
          subject: message.title,
          text: message.body,
          headers: { 'X-Dockwatch-Event': message.event },
        });
        try {
          await abortable(sending, context.signal);
        } catch (error) {
          throw smtpError(component, secrets, error, context.signal);
        }
      },
      async close() {
        transporter.close();
      },
    };
  },
};

function smtpError(component: string, secrets: readonly string[], error: unknown, signal: AbortSignal): DeliveryError {
  if (signal.aborted) return new DeliveryError(`${component}: no answer before the delivery timeout`, true);
  const details = error as { message?: unknown; responseCode?: unknown; code?: unknown };
  const text = scrubSecrets(String(details.message ?? error).replace(/\s+/g, ' '), secrets).slice(0, 300);
  const reply = typeof details.responseCode === 'number' ? details.responseCode : undefined;
  const retryable = reply === undefined || (reply >= 400 && reply < 500);
  const code = typeof details.code === 'string' ? ` (${details.code})` : '';
  return new DeliveryError(`${component}: ${text}${code}`, retryable, reply);
}
