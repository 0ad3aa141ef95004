import type { NotificationProviderDefinition } from '../../../notifications/notification-provider';
import { secretFragments } from '../../../notifications/providers/secret-fragments';
import { lazyTransport } from './lazy-transport';
import { type SmtpConfig, SmtpKeys } from './smtp-config';

/**
 * `DD_NOTIFICATION_SMTP_<NAME>_*`: e-mail through an SMTP server, with nodemailer (its "SMTP
 * transport" docs: `host, port, secure, requireTLS, ignoreTLS, auth {user, pass}, tls
 * {rejectUnauthorized}`, and the error fields `code` and `responseCode`). Subject = title, plain
 * text body = body. SMTP reply codes say whether to retry (RFC 5321 §4.2.1): 4yz is transient,
 * 5yz permanent; a failure with no reply (connection, TLS, timeout) is retried.
 */
export const smtpProvider: NotificationProviderDefinition<SmtpConfig> = {
  type: 'smtp',
  keys: SmtpKeys,
  secretKeys: ['pass'],
  create: (config, name) =>
    lazyTransport(
      () => import('./smtp-transport').then(({ createSmtpTransport }) => createSmtpTransport(config, name)),
      secretFragments([config.pass]),
    ),
};
