import { z } from 'zod';
import { port, positiveMs, type VariablesOf } from './section.ts';

/** Everything the mail role reads but the domains it receives for (`mail-domains.ts`, which the API reads too). */
export const mailVariables = {
  // Email forwarding; README "Email forwarding" documents each.
  MAIL_RELAY_SENDER: z.email({ pattern: z.regexes.html5Email, error: 'must be an email address' }).default('forwarder@localhost'),
  MAIL_RELAY_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_HOSTNAME: z.string().min(1).default('localhost'),
  MAIL_DKIM_SELECTOR: z
    .string()
    .regex(/^[a-z0-9._-]+$/i, 'letters, digits, _ . - only')
    .default('quarry'),
  MAIL_DKIM_PRIVATE_KEY: z.string().optional(),
  MAIL_MX_PORT: port.default(25),
  // DNS servers for MX lookups and ARC sealing instead of the system's: "ip" or "ip:port", comma-separated.
  MAIL_DNS_SERVERS: z
    .string()
    .regex(/^\s*[0-9a-f.:[\]]+(\s*,\s*[0-9a-f.:[\]]+)*\s*$/i, 'comma-separated ip or ip:port')
    .optional(),
  MAIL_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(20),
  MAIL_RETRY_BASE_MS: positiveMs.default(300_000),
  MAIL_RETRY_MAX_MS: positiveMs.default(4_000_000),
  MAIL_MAX_QUEUE_LIFETIME_MS: positiveMs.default(5 * 24 * 3600_000),
};

export const readMail = (vars: VariablesOf<typeof mailVariables>) => ({
  mail: {
    relaySender: vars.MAIL_RELAY_SENDER.toLowerCase(),
    relayUrl: vars.MAIL_RELAY_URL,
    hostname: vars.MAIL_HOSTNAME,
    // A PEM may come through the environment with literal "\n" sequences (one-line env files).
    dkim: { selector: vars.MAIL_DKIM_SELECTOR, privateKey: vars.MAIL_DKIM_PRIVATE_KEY?.replace(/\\n/g, '\n') },
    mxPort: vars.MAIL_MX_PORT,
    // Absent, not undefined, when unset: callers that build mail settings may leave it out.
    ...(vars.MAIL_DNS_SERVERS === undefined
      ? {}
      : {
          /** DNS servers ("ip" or "ip:port") instead of the system's, for MX lookups and ARC sealing; unset: the system's. */
          dnsServers: vars.MAIL_DNS_SERVERS.split(',').map((server) => server.trim()),
        }),
    deliveryConcurrency: vars.MAIL_DELIVERY_CONCURRENCY,
    retryBaseMs: vars.MAIL_RETRY_BASE_MS,
    retryMaxMs: vars.MAIL_RETRY_MAX_MS,
    maxQueueLifetimeMs: vars.MAIL_MAX_QUEUE_LIFETIME_MS,
  },
});
