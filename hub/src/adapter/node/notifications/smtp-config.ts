import * as v from 'valibot';
import {
  boolean,
  choice,
  integer,
  providerKeys,
  requireWith,
  text,
} from '../../../notifications/providers/provider-keys';

/** `name@host`, or `Display Name <name@host>`. */
const ADDRESS = /^([^<>\r\n]*<)?[^\s@<>,]+@[^\s@<>,]+>?$/;

/** The keys of `DD_NOTIFICATION_SMTP_<NAME>_*` (smtp.ts), apart from the transport so that it can load lazily. */
export const SmtpKeys = v.pipe(
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
export type SmtpConfig = v.InferOutput<typeof SmtpKeys>;
