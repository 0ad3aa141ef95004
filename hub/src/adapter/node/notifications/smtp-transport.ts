import nodemailer from 'nodemailer';
import { DeliveryError, type NotificationTransport } from '../../../notifications/notification-provider';
import { scrubSecrets, secretFragments } from '../../../notifications/providers/secret-fragments';
import { abortable } from './abortable';
import type { SmtpConfig } from './smtp-config';

/** Bounds of one SMTP conversation, besides the delivery timeout (nodemailer cannot be aborted). */
const CONNECTION_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** The nodemailer side of the smtp trigger (smtp.ts), imported only when one is configured. */
export function createSmtpTransport(config: SmtpConfig, name: string): NotificationTransport {
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
}

function smtpError(component: string, secrets: readonly string[], error: unknown, signal: AbortSignal): DeliveryError {
  if (signal.aborted) return new DeliveryError(`${component}: no answer before the delivery timeout`, true);
  const details = error as { message?: unknown; responseCode?: unknown; code?: unknown };
  const text = scrubSecrets(String(details.message ?? error).replace(/\s+/g, ' '), secrets).slice(0, 300);
  const reply = typeof details.responseCode === 'number' ? details.responseCode : undefined;
  const retryable = reply === undefined || (reply >= 400 && reply < 500);
  const code = typeof details.code === 'string' ? ` (${details.code})` : '';
  return new DeliveryError(`${component}: ${text}${code}`, retryable, reply);
}
