import { z } from 'zod';
import { port, positiveMs, trueOrFalse, type VariablesOf } from './section.ts';

export const smtpVariables = {
  SMTP_PORT: port.default(2525),
  SMTP_HOST: z.string().min(1).default('0.0.0.0'),
  SMTP_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(25 * 1024 * 1024),
  SMTP_MAX_RECIPIENTS: z.coerce.number().int().min(1).max(10_000).default(100),
  SMTP_MAX_CLIENTS: z.coerce.number().int().min(1).default(1000),
  SMTP_MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).default(50),
  SMTP_BUSY_IDLE_TIMEOUT_MS: positiveMs.default(10_000),
  SMTP_MAX_MESSAGES_PER_MINUTE_PER_IP: z.coerce.number().int().min(1).default(60_000),
  SMTP_GREETING_DELAY_MS: z.coerce.number().int().min(0).max(30_000).default(0),
  SMTP_MAX_RECEIVED_HEADERS: z.coerce.number().int().min(1).default(30),
  SMTP_TLS_KEY: z.string().optional(),
  SMTP_TLS_CERT: z.string().optional(),
  SMTP_REUSE_PORT: trueOrFalse.default('false'),
};

export const readSmtp = (vars: VariablesOf<typeof smtpVariables>) => ({
  smtpPort: vars.SMTP_PORT,
  smtp: {
    host: vars.SMTP_HOST,
    maxMessageBytes: vars.SMTP_MAX_MESSAGE_BYTES,
    maxRecipients: vars.SMTP_MAX_RECIPIENTS,
    maxClients: vars.SMTP_MAX_CLIENTS,
    /** Connections one client address may hold at once, per process. */
    maxConnectionsPerClient: vars.SMTP_MAX_CONNECTIONS_PER_CLIENT,
    /** Idle timeout while every connection slot is taken. */
    busyIdleTimeoutMs: vars.SMTP_BUSY_IDLE_TIMEOUT_MS,
    maxMessagesPerMinutePerIp: vars.SMTP_MAX_MESSAGES_PER_MINUTE_PER_IP,
    greetingDelayMs: vars.SMTP_GREETING_DELAY_MS,
    maxReceivedHeaders: vars.SMTP_MAX_RECEIVED_HEADERS,
    /** Several processes on one host share the SMTP port (SO_REUSEPORT; the kernel spreads connections). */
    reusePort: vars.SMTP_REUSE_PORT === 'true',
    tls:
      vars.SMTP_TLS_KEY && vars.SMTP_TLS_CERT
        ? { key: vars.SMTP_TLS_KEY.replace(/\\n/g, '\n'), cert: vars.SMTP_TLS_CERT.replace(/\\n/g, '\n') }
        : undefined,
  },
});
