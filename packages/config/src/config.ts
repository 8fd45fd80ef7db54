import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = z.coerce.number().int().min(0).max(65_535);
const positiveMs = z.coerce.number().int().positive();

/** Every setting comes from the environment and is documented in the README's Configuration table. */
const EnvSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgres://postgres@127.0.0.1:5432/quarry'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only').default('quarry'),
  SMTP_PORT: port.default(2525),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('quarry'),
  ALLOW_PRIVATE_URLS: z.string().default(''),
  QUARRY_SECRET_KEY: z
    .string({ error: 'is required: 32 random bytes, base64 (openssl rand -base64 32)' })
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded'),
  JWT_JWKS_URL: z.url().optional(),
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().optional(),
  AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  SHUTDOWN_GRACE_MS: positiveMs.default(25_000),
  JOB_LOCK_MS: positiveMs.default(30_000),
  JOB_STALLED_INTERVAL_MS: positiveMs.default(30_000),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(10),
});

export type Config = {
  port: number;
  host: string;
  databaseUrl: string;
  databasePoolSize: number;
  redisUrl: string;
  queuePrefix: string;
  smtpPort: number;
  logLevel: (typeof logLevels)[number];
  otlpEndpoint: string | undefined;
  serviceName: string;
  allowPrivateUrls: string[];
  secretKey: Buffer;
  jwt: { jwksUrl: string | undefined; issuer: string | undefined; audience: string | undefined };
  authCacheMs: number;
  shutdownGraceMs: number;
  jobLockMs: number;
  jobStalledIntervalMs: number;
  workerConcurrency: number;
};

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses the environment; throws one ConfigError naming every bad variable. Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`));
  }
  const vars = parsed.data;
  const allowPrivateUrls = vars.ALLOW_PRIVATE_URLS.split(',').map((entry) => entry.trim()).filter(Boolean);
  return {
    port: vars.PORT,
    host: vars.HOST,
    databaseUrl: vars.DATABASE_URL,
    databasePoolSize: vars.DATABASE_POOL_SIZE,
    redisUrl: vars.REDIS_URL,
    queuePrefix: vars.QUEUE_PREFIX,
    smtpPort: vars.SMTP_PORT,
    logLevel: vars.LOG_LEVEL,
    otlpEndpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: vars.OTEL_SERVICE_NAME,
    allowPrivateUrls,
    secretKey: Buffer.from(vars.QUARRY_SECRET_KEY, 'base64'),
    jwt: { jwksUrl: vars.JWT_JWKS_URL, issuer: vars.JWT_ISSUER, audience: vars.JWT_AUDIENCE },
    authCacheMs: vars.AUTH_CACHE_MS,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
    jobLockMs: vars.JOB_LOCK_MS,
    jobStalledIntervalMs: vars.JOB_STALLED_INTERVAL_MS,
    workerConcurrency: vars.WORKER_CONCURRENCY,
  };
}
