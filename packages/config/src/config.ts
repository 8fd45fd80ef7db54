import { atsEndpointNames, type AtsEndpointName } from '@quarry/contracts';
import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = z.coerce.number().int().min(0).max(65_535);
const positiveMs = z.coerce.number().int().positive();

/** A vendor base URL; `{host}` / `{company}` placeholders are filled from the posting URL. */
const endpointUrl = z.string().regex(/^https?:\/\/\S+$/, 'must be an http(s) URL (placeholders {host} and {company} allowed)');
/** `MINING_ATS_ENDPOINTS`: a JSON object overriding some vendor base URLs (a gateway, a test server). */
const AtsEndpoints = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"greenhouseApi":"https://gateway.internal/greenhouse"}' });
      return z.NEVER;
    }
  })
  .pipe(z.strictObject(Object.fromEntries(atsEndpointNames.map((name) => [name, endpointUrl.optional()])) as Record<AtsEndpointName, z.ZodOptional<typeof endpointUrl>>));

/** Every setting comes from the environment and is documented in the README's Configuration table; grouped by who uses it. */
const secretKey = z
  .string({ error: 'is required: 32 random bytes, base64 (openssl rand -base64 32)' })
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

/** `QUARRY_KEYS`: a comma list of `id:base64key`, each key 32 bytes (ADR 0059). */
const keyringKeys = z
  .string()
  .transform((text, context) => {
    const keys: Array<{ id: string; material: Buffer }> = [];
    for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
      const separator = entry.indexOf(':');
      const id = separator < 0 ? '' : entry.slice(0, separator);
      const material = Buffer.from(entry.slice(separator + 1), 'base64');
      if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(id)) context.addIssue({ code: 'custom', message: `"${entry.slice(0, 40)}…": each key is id:base64key, the id 1 to 32 lower-case letters, digits and dashes` });
      else if (id === 'secret') context.addIssue({ code: 'custom', message: 'the id "secret" is the key derived from QUARRY_SECRET_KEY: give another id' });
      else if (material.length !== 32) context.addIssue({ code: 'custom', message: `key ${id}: must be 32 bytes, base64-encoded (quarry keys generate)` });
      else if (keys.some((key) => key.id === id)) context.addIssue({ code: 'custom', message: `key ${id}: given twice` });
      else keys.push({ id, material });
    }
    return keys;
  });

/** The browser pools' limits (`BROWSER_*`, read also under their deprecated `MINING_BROWSER_*` names). */
const recycleJobs = z.coerce.number().int().min(1);
const recycleMb = z.coerce.number().int().min(100);
const browserContexts = z.coerce.number().int().min(1).max(64);

/** A booking unfinished this long after its creation fails `JobTimeout` unless its order is with the hotel: the longest it may still order. */
const bookingJobTimeout = positiveMs.default(60 * 60_000);

const sectionShapes = {
  database: {
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgres://postgres@127.0.0.1:5432/quarry'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  },
  process: {
    PORT: port.default(8080),
    HOST: z.string().min(1).default('0.0.0.0'),
    // Prometheus metrics on a port of their own (9464: the OpenTelemetry Prometheus exporter's), so
    // whoever reaches the API port cannot read them.
    METRICS_PORT: port.default(9464),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
    QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only').default('quarry'),
    LOG_LEVEL: z.enum(logLevels).default('info'),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).default('quarry'),
    SHUTDOWN_GRACE_MS: positiveMs.default(25_000),
  },
  workers: {
    // A crashed process's jobs go back to the queue at most lock + stalled interval after the
    // crash (14 s): its work resumes within 15 s. The lock is renewed every half lock, so a healthy
    // worker keeps it through event-loop pauses of up to 5 s.
    JOB_LOCK_MS: positiveMs.default(10_000),
    JOB_STALLED_INTERVAL_MS: positiveMs.default(2_000),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(10),
  },
  secret: {
    QUARRY_SECRET_KEY: secretKey,
  },
  // The keys that seal values at rest (ADR 0059). QUARRY_SECRET_KEY alone: a key derived from it
  // (id `secret`) seals; QUARRY_KEYS adds keys and QUARRY_CURRENT_KEY_ID names the sealing one.
  keyring: {
    QUARRY_KEYS: keyringKeys.optional(),
    QUARRY_CURRENT_KEY_ID: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be the id of a key of QUARRY_KEYS (or "secret")').optional(),
    QUARRY_OPEN_SECRET_KEY_SEALS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  },
  // The mining worker opens the Workday accounts clients registered with QUARRY_SECRET_KEY when it
  // has it; without it, mining still runs and those postings answer LoginRequired.
  accountsKey: {
    QUARRY_SECRET_KEY: secretKey.optional(),
  },
  outbound: {
    ALLOW_PRIVATE_URLS: z.string().default(''),
  },
  browser: {
    // Every Chromium runs with its sandbox on. Chromium refuses that sandbox to root, so a process
    // running as root starts its browsers as this unprivileged user (uid:gid; ADR 0056). Unused
    // when the process is not root (the image runs as 1000:1000).
    CHROMIUM_RUN_AS: z
      .string()
      .regex(/^[1-9]\d*:[1-9]\d*$/, 'must be uid:gid of an unprivileged user (not root), e.g. 65534:65534')
      .default('65534:65534'),
    // Debian's headless shell: the full browser costs 3–8× the CPU per context (ADR 0021). The
    // browser of mining, applying and hotel checkouts (each process's pools, @quarry/browser).
    CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium-headless-shell'),
    // A pool replaces its Chromium after this many jobs, or above this much memory (PSS, MB).
    BROWSER_RECYCLE_JOBS: recycleJobs.optional(),
    BROWSER_RECYCLE_MB: recycleMb.optional(),
    // Browser contexts open at once per process for pages clients submit (mining, applying): memory, not CPU, sets it.
    BROWSER_CONTEXTS: browserContexts.optional(),
    // Deprecated names of the three above, still read when the new name is unset (ADR 0061).
    MINING_BROWSER_RECYCLE_JOBS: recycleJobs.optional(),
    MINING_BROWSER_RECYCLE_MB: recycleMb.optional(),
    MINING_BROWSER_CONTEXTS: browserContexts.optional(),
  },
  cardTransport: {
    // Card data goes to hotels over https: only. This development allowance lets a hotel on a
    // loopback address (the tests', the demo's) take it over plain http:, and each such hotel is logged.
    ALLOW_LOOPBACK_HTTP_HOTELS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  },
  vault: {
    // The card vault's own key (ADR 0036), read only by the roles that store or open cards; never
    // QUARRY_SECRET_KEY. Without it, POST /vault/* answer 503 VaultNotConfigured.
    VAULT_KEY: z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
      .optional(),
    // More vault keys (ADR 0062): `id:base64key`, comma separated; VAULT_CURRENT_KEY_ID names the one
    // new cards are sealed with (`vault` is the key of VAULT_KEY), the others only open cards until
    // `quarry vault rotate` has re-sealed them. VAULT_TOKEN_KEY: the MAC key of card tokens, kept
    // across rotations so tokens handed out keep working (default: VAULT_KEY, as before key ids).
    VAULT_KEYS: keyringKeys.optional(),
    VAULT_CURRENT_KEY_ID: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be the id of a key of VAULT_KEYS (or "vault")').optional(),
    VAULT_TOKEN_KEY: z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
      .optional(),
    // A CVV waits at most this long, in Redis only (PCI DSS 3.3.1), for the booking that takes its
    // card (POST /book); from there it is kept as long as that booking may still order
    // (BOOKING_JOB_TIMEOUT_MS), and removed once the order that carries it is recorded.
    VAULT_CVV_TTL_SECONDS: z.coerce.number().int().min(60).max(3_600).default(900),
    BOOKING_JOB_TIMEOUT_MS: bookingJobTimeout,
    // A card no booking purged is refused, then deleted, after this (and at the end of its expiry month).
    VAULT_CARD_RETENTION_HOURS: z.coerce.number().int().min(1).max(720).default(24),
  },
  auth: {
    JWT_JWKS_URL: z.url().optional(),
    JWT_ISSUER: z.string().optional(),
    JWT_AUDIENCE: z.string().optional(),
    AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    // Failed authentications (API and dashboard sign-in) allowed per window before 429 (ADR 0030).
    AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(30),
    AUTH_FAILURES_PER_CLIENT: z.coerce.number().int().min(1).max(1_000_000).default(20),
    AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  },
  retrieval: {
    RETRIEVAL_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
    RETRIEVAL_CACHE_TTL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
    // Bookings' statuses an API process serves without a query, dropped at every committed change.
    BOOKING_STATUS_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(16),
  },
  rates: {
    // Hotel rates; README "Hotel rates feed" documents each.
    RATES_HORIZON_DAYS: z.coerce.number().int().min(1).max(500).default(90),
    RATES_NIGHTS: z
      .string()
      .default('1')
      .refine((value) => value.split(',').every((nights) => /^\s*\d+\s*$/.test(nights) && Number(nights) >= 1 && Number(nights) <= 30), 'must be comma-separated integers 1..30'),
    RATES_FRESHNESS_MS: positiveMs.default(60 * 60_000),
    RATES_REFRESH_NEAR_MS: positiveMs.default(15 * 60_000),
    RATES_REFRESH_MID_MS: positiveMs.default(60 * 60_000),
    RATES_REFRESH_FAR_MS: positiveMs.default(6 * 60 * 60_000),
    RATES_SCHEDULE_EVERY_MS: positiveMs.default(60_000),
    RATES_PULL_DEADLINE_MS: positiveMs.default(3_000),
    RATES_SOURCE_TIMEOUT_MS: positiveMs.default(45_000),
    RATES_SOURCE_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
    RATES_SOURCE_PER_SECOND: z.coerce.number().min(0).max(1000).default(2),
    RATES_PUSH_TIMEOUT_MS: positiveMs.default(5 * 60_000),
    RATES_PUSH_BACKOFF_BASE_MS: positiveMs.default(5_000),
    RATES_PUSH_BACKOFF_MAX_MS: positiveMs.default(10 * 60_000),
    RATES_PUSH_SUSPEND_AFTER_MS: positiveMs.default(24 * 3600_000),
    RATES_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
    RATES_PUSH_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(256),
    RATES_PULL_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(128),
    RATES_PUSH_MAX_MB: z.coerce.number().int().min(1).max(10_240).default(50),
  },
  batches: {
    // Recruitment batches, read where batches are accepted (api) and mined (mining-worker); README "Recruitment" documents each.
    MINING_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(4),
    MINING_BATCH_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
    MINING_AUTOPAUSE_WINDOW: z.coerce.number().int().min(1).max(10_000).default(50),
    MINING_AUTOPAUSE_MIN_SUCCESS_RATE: z.coerce.number().min(0).max(1).default(0.2),
    MINING_CSV_MAX_BYTES: z.coerce.number().int().min(1024).default(64 * 1024 * 1024),
  },
  mining: {
    // Recruitment mining; README "Recruitment" documents each.
    MINING_PAGE_TIMEOUT_MS: positiveMs.default(30_000),
    MINING_BATCH_POLL_MS: positiveMs.default(2_000),
    // Mining's own switch: `off` mines without Chromium (the process's other roles keep theirs).
    MINING_BROWSER: z.enum(['on', 'off']).default('on'),
    MINING_ATS_ENDPOINTS: AtsEndpoints.optional(),
    MINING_PROBE_DEPTH: z.coerce.number().int().min(0).max(4).default(2),
  },
  applications: {
    // Applications; README "Applications" documents each.
    APPLY_MAX_FILE_MB: z.coerce.number().min(0.001).max(1_024).default(10),
    APPLY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
    APPLY_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
    // Applications running at once, and started per second, per employer host across every worker.
    APPLY_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(1),
    APPLY_HOST_PER_SECOND: z.coerce.number().int().min(0).max(1_000).default(1),
    APPLY_PURGE_EVERY_MS: positiveMs.default(3_600_000),
    // How often lost application jobs are looked for, and how long an application must be untouched to count as lost.
    APPLY_RECONCILE_EVERY_MS: positiveMs.default(5_000),
    APPLY_STRANDED_AFTER_MS: positiveMs.default(5_000),
    // One application in the browser, from a free context to the outcome (the job's own limit is 10 minutes).
    APPLY_TIMEOUT_MS: positiveMs.default(180_000),
  },
  callbacks: {
    // Recruitment's callbacks (ADR 0053); README "Callbacks" documents each.
    CALLBACK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(100),
    CALLBACK_CLIENT_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(50),
    CALLBACK_TIMEOUT_MS: positiveMs.default(15_000),
    CALLBACK_RETRY_BASE_MS: positiveMs.default(5_000),
    CALLBACK_RETRY_MAX_MS: positiveMs.default(3_600_000),
    CALLBACK_GIVE_UP_AFTER_MS: positiveMs.default(86_400_000),
    CALLBACK_RELAY_POLL_MS: positiveMs.default(100),
    CALLBACK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(7),
  },
  bookings: {
    // Hotel bookings; README "Hotel bookings" documents each.
    BOOKING_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
    BOOKING_SOURCE_TIMEOUT_MS: positiveMs.default(60_000),
    BOOKING_PRICE_HOLD_MS: positiveMs.default(15 * 60_000),
    BOOKING_INPUT_TIMEOUT_MS: positiveMs.default(15 * 60_000),
    BOOKING_JOB_TIMEOUT_MS: bookingJobTimeout,
    BOOKING_TDS_TIMEOUT_MS: positiveMs.default(10 * 60_000),
    BOOKING_TDS_POLL_MS: positiveMs.default(3_000),
    BOOKING_SWEEP_EVERY_MS: positiveMs.default(30_000),
    // A browser checkout's lease, renewed every third of it while its page is open: a store outage
    // shorter than it never hands a held checkout to another run (the page cannot follow), and a
    // dead holder's booking is handed on within it and a sweep.
    BOOKING_CHECKOUT_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
    // Checkouts on hotels' own booking pages held open at once per process, each a browser context
    // for up to the input and 3-D Secure waits; counted apart from mining's contexts.
    BOOKING_BROWSER_CONTEXTS: z.coerce.number().int().min(1).max(64).default(5),
    // Price checks' search pages kept idle per process for the next price check of the same site,
    // beside BOOKING_BROWSER_CONTEXTS (a page in use takes one of those); 0: a new context each time.
    BOOKING_SEARCH_PAGES: z.coerce.number().int().min(0).max(16).default(5),
  },
  dashboard: {
    // Dashboard single sign-on (OIDC, authorization code + PKCE); all of the first five or none.
    DASHBOARD_OIDC_ISSUER: z.url().optional(),
    DASHBOARD_OIDC_CLIENT_ID: z.string().min(1).optional(),
    DASHBOARD_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    DASHBOARD_OIDC_ADMIN_CLIENT_ID: z.string().regex(/^cl_[a-z0-9]{20}$/, 'must be a client id (cl_…)').optional(),
    DASHBOARD_PUBLIC_URL: z.url().optional(),
    DASHBOARD_OIDC_ALLOWED_EMAILS: z.string().default(''),
  },
  mailDomains: {
    // Read by the API (binding recipients) and the mail role (SMTP recipients); README "Email forwarding".
    MAIL_DOMAINS: z
      .string()
      .default('localhost')
      .refine((value) => value.split(',').every((domain) => /^[a-z0-9.-]+$/i.test(domain.trim())), 'must be comma-separated domain names'),
  },
  mail: {
    // Email forwarding; README "Email forwarding" documents each.
    MAIL_RELAY_SENDER: z.email({ pattern: z.regexes.html5Email, error: 'must be an email address' }).default('forwarder@localhost'),
    MAIL_RELAY_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    MAIL_HOSTNAME: z.string().min(1).default('localhost'),
    MAIL_DKIM_SELECTOR: z.string().regex(/^[a-z0-9._-]+$/i, 'letters, digits, _ . - only').default('quarry'),
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
  },
  mailbox: {
    // Watching handed-out pool accounts over IMAP; README "Email forwarding" documents each.
    MAILBOX_WATCH: z.enum(['true', 'false']).default('true'),
    MAILBOX_LEASE_MS: z.coerce.number().int().min(200).default(30_000),
    MAILBOX_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(2000),
    MAILBOX_POLL_MS: z.coerce.number().int().min(100).default(60_000),
    MAILBOX_FOLDERS: z
      .string()
      .default('INBOX,Junk')
      .refine((value) => value.split(',').every((folder) => folder.trim().length > 0), 'must be comma-separated folder names'),
    MAILBOX_LOGIN_RETRY_MS: positiveMs.default(60_000),
    MAILBOX_MAX_LOGIN_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
    MAILBOX_SEEN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  },
  smtp: {
    SMTP_PORT: port.default(2525),
    SMTP_HOST: z.string().min(1).default('0.0.0.0'),
    SMTP_MAX_MESSAGE_BYTES: z.coerce.number().int().min(1024).default(25 * 1024 * 1024),
    SMTP_MAX_RECIPIENTS: z.coerce.number().int().min(1).max(10_000).default(100),
    SMTP_MAX_CLIENTS: z.coerce.number().int().min(1).default(1000),
    SMTP_MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).default(50),
    SMTP_BUSY_IDLE_TIMEOUT_MS: positiveMs.default(10_000),
    SMTP_MAX_MESSAGES_PER_MINUTE_PER_IP: z.coerce.number().int().min(1).default(60_000),
    SMTP_GREETING_DELAY_MS: z.coerce.number().int().min(0).max(30_000).default(0),
    SMTP_MAX_RECEIVED_HEADERS: z.coerce.number().int().min(1).default(30),
    SMTP_TLS_KEY: z.string().optional(),
    SMTP_TLS_CERT: z.string().optional(),
    SMTP_REUSE_PORT: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  },
  demo: {
    // The demo (`npm run demo`): its sites listen on a loopback address of their own, the only one
    // the SSRF guard then lets through, so client URLs still cannot reach Postgres or Redis on 127.0.0.1.
    DEMO_HOST: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IP address' }).default('127.0.0.77'),
    DEMO_PORT: port.default(8090),
    DEMO_SMTP_PORT: port.default(2587),
  },
} satisfies Record<string, z.ZodRawShape>;

/** The names of every variable the configuration reads (what `npm start` records for the CLI). */
export const configVariableNames: readonly string[] = [...new Set(Object.values(sectionShapes).flatMap((shape) => Object.keys(shape)))];

/**
 * Every variable, parsed: what a section's reader may read once its section parsed.
 * QUARRY_SECRET_KEY is required in `secret` and optional in `accountsKey`: typed as the looser.
 */
type Vars = Omit<z.output<z.ZodObject<UnionToIntersection<(typeof sectionShapes)[Section]>>>, 'QUARRY_SECRET_KEY'> & { QUARRY_SECRET_KEY: string | undefined };

export type RatesSettings = {
  horizonDays: number;
  nights: number[];
  freshnessMs: number;
  refreshNearMs: number;
  refreshMidMs: number;
  refreshFarMs: number;
  scheduleEveryMs: number;
  pullDeadlineMs: number;
  sourceTimeoutMs: number;
  sourceConcurrency: number;
  sourcePerSecond: number;
  pushTimeoutMs: number;
  pushBackoffBaseMs: number;
  pushBackoffMaxMs: number;
  pushSuspendAfterMs: number;
  chromiumPath: string;
  pushCacheBytes: number;
  pullCacheBytes: number;
  pushMaxBytes: number;
};

/** How batches are accepted and run: what the API (intake) and the mining worker (admission, auto-pause) share. */
export type BatchSettings = {
  /** Each new batch's limits, stored with it: rows mined at once across all workers, and rows started per minute. */
  batch: { concurrency: number; ratePerMinute: number };
  /** Auto-pause when the success rate over the last `window` outcomes falls below `minSuccessRate`. */
  autoPause: { window: number; minSuccessRate: number };
  maxCsvBytes: number;
};

/** Every Chromium pool of a process: its binary and limits (`@quarry/browser`). */
export type BrowserSettings = {
  chromiumPath: string;
  /** A fresh browser after this many jobs, or once its processes hold more than `recycleAboveMb` (PSS). */
  recycleAfterJobs: number;
  recycleAboveMb: number;
  /** Contexts open at once in the pool of pages clients submit (mining, applying); checkouts have their own limit. */
  maxContexts: number;
};

export type MiningSettings = {
  pageTimeoutMs: number;
  batchPollMs: number;
  /** Whether mining renders pages in Chromium (`MINING_BROWSER`), and how deep it probes conditional questions there. */
  browser: { enabled: boolean; probeDepth: number };
  /** Vendor base URLs overriding the adapters' defaults (only the ones given). */
  atsEndpoints: Partial<Record<AtsEndpointName, string>>;
};

export type ApplicationsSettings = {
  maxFileBytes: number;
  retentionDays: number;
  concurrency: number;
  hostConcurrency: number;
  hostPerSecond: number;
  purgeEveryMs: number;
  reconcileEveryMs: number;
  /** An application not ended, held by no live run and untouched this long has lost its job. */
  strandedAfterMs: number;
  /** One application in the browser, from a free context to the outcome. */
  timeoutMs: number;
};

/**
 * The card vault: its keys (VAULT_KEY and VAULT_KEYS both absent: no vault on this deployment) and how long a CVV and a card are
 * kept (a CVV `cvvTtlMs` until a booking takes the card, then `cvvBookingHoldMs`).
 */
/** What the keyring is made of (`createDeploymentKeyring` of packages/keyring reads it). */
export type KeyringSettings = {
  secretKey: Buffer | undefined;
  keys: Array<{ id: string; material: Buffer }>;
  currentKeyId: string | undefined;
  openSecretKeySeals: boolean;
};

export type VaultSettings = {
  key: Buffer | undefined;
  keys: Array<{ id: string; material: Buffer }>;
  currentKeyId: string | undefined;
  tokenKey: Buffer | undefined;
  cvvTtlMs: number; cvvBookingHoldMs: number; cardRetentionMs: number };

/** Recruitment's callbacks: their delivery (the `callbacks.deliver` job) and their relay. */
type CallbackSettings = {
  /** `callbacks.deliver` jobs at once per process (each up to `eventsPerJob` POSTs of one client). */
  concurrency: number;
  /** Events of one client in flight at once, across every process. */
  clientConcurrency: number;
  eventsPerJob: number;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  giveUpAfterMs: number;
  relayPollMs: number;
  retentionMs: number;
};

export type BookingsSettings = {
  concurrency: number;
  sourceTimeoutMs: number;
  priceHoldMs: number;
  inputTimeoutMs: number;
  jobTimeoutMs: number;
  tdsTimeoutMs: number;
  tdsPollMs: number;
  sweepEveryMs: number;
  checkoutLeaseMs: number;
  browserContexts: number;
  searchPages: number;
};

/** Dashboard single sign-on (OIDC). */
export type OidcSettings = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The Quarry admin client that single-sign-on users act as (its scopes decide what they may do). */
  adminClientId: string;
  /** Where the dashboard is reached from browsers, e.g. https://quarry.example.com */
  publicUrl: string;
  /** Emails (`ops@example.com`) or domains (`@example.com`) allowed in; empty: anyone the provider signs in. */
  allowedEmails: string[];
};

/** Completed retrieval answers an API process keeps (0 turns it off), and how long at most. */
export type RetrievalCacheSettings = { maxBytes: number; ttlMs: number };

/** Everything the mail role reads but the domains it receives for (`mailDomains`, which the API reads too). */
export type MailSettings = {
  relaySender: string;
  relayUrl: string | undefined;
  hostname: string;
  dkim: { selector: string; privateKey: string | undefined };
  mxPort: number;
  /** DNS servers ("ip" or "ip:port") instead of the system's, for MX lookups and ARC sealing; unset: the system's. */
  dnsServers?: string[] | undefined;
  deliveryConcurrency: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxQueueLifetimeMs: number;
};

/** The mail role's watching of handed-out pool accounts over IMAP. */
export type MailboxSettings = {
  watch: boolean;
  leaseMs: number;
  maxConnections: number;
  pollMs: number;
  folders: string[];
  loginRetryMs: number;
  maxLoginFailures: number;
  /** How long the keys of taken messages are kept; older mail is never taken. */
  seenRetentionMs: number;
};

export type SmtpSettings = {
  host: string;
  maxMessageBytes: number;
  maxRecipients: number;
  maxClients: number;
  /** Connections one client address may hold at once, per process. */
  maxConnectionsPerClient: number;
  /** Idle timeout while every connection slot is taken. */
  busyIdleTimeoutMs: number;
  maxMessagesPerMinutePerIp: number;
  greetingDelayMs: number;
  maxReceivedHeaders: number;
  tls: { key: string; cert: string } | undefined;
  /** Several processes on one host share the SMTP port (SO_REUSEPORT; the kernel spreads connections). */
  reusePort: boolean;
};

const allowPrivate = (vars: Vars) => vars.ALLOW_PRIVATE_URLS.split(',').map((entry) => entry.trim()).filter(Boolean);
const oidcVariables = ['DASHBOARD_OIDC_ISSUER', 'DASHBOARD_OIDC_CLIENT_ID', 'DASHBOARD_OIDC_CLIENT_SECRET', 'DASHBOARD_OIDC_ADMIN_CLIENT_ID', 'DASHBOARD_PUBLIC_URL'] as const;

/** Each section's variables → its typed settings (read only after the section's variables parsed). */
const readers = {
  database: (vars: Vars) => ({ databaseUrl: vars.DATABASE_URL, databasePoolSize: vars.DATABASE_POOL_SIZE }),
  process: (vars: Vars) => ({
    port: vars.PORT,
    /** `/metrics` is served here only, on `host`, never on the API port. */
    metricsPort: vars.METRICS_PORT,
    host: vars.HOST,
    redisUrl: vars.REDIS_URL,
    queuePrefix: vars.QUEUE_PREFIX,
    logLevel: vars.LOG_LEVEL as (typeof logLevels)[number],
    otlpEndpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT as string | undefined,
    serviceName: vars.OTEL_SERVICE_NAME,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
  }),
  workers: (vars: Vars) => ({ jobLockMs: vars.JOB_LOCK_MS, jobStalledIntervalMs: vars.JOB_STALLED_INTERVAL_MS, workerConcurrency: vars.WORKER_CONCURRENCY }),
  // Required wherever this section is read (its shape wins over accountsKey's optional one).
  secret: (vars: Vars) => ({ secretKey: Buffer.from(vars.QUARRY_SECRET_KEY as string, 'base64') }),
  accountsKey: (vars: Vars) => ({ accountsKey: vars.QUARRY_SECRET_KEY === undefined ? undefined : Buffer.from(vars.QUARRY_SECRET_KEY, 'base64') }),
  keyring: (vars: Vars) => {
    const keys = vars.QUARRY_KEYS ?? [];
    const openSecretKeySeals = vars.QUARRY_OPEN_SECRET_KEY_SEALS === 'true';
    const secretKey = vars.QUARRY_SECRET_KEY === undefined ? undefined : Buffer.from(vars.QUARRY_SECRET_KEY, 'base64');
    const problems: string[] = [];
    if (keys.length > 0 && vars.QUARRY_CURRENT_KEY_ID === undefined) problems.push('QUARRY_CURRENT_KEY_ID is required with QUARRY_KEYS: the id of the key new values are sealed with');
    const current = vars.QUARRY_CURRENT_KEY_ID;
    if (current !== undefined && current !== 'secret' && !keys.some((key) => key.id === current)) problems.push(`QUARRY_CURRENT_KEY_ID ${current} is not a key of QUARRY_KEYS`);
    if (current === 'secret' && !(secretKey && openSecretKeySeals)) problems.push('QUARRY_CURRENT_KEY_ID secret needs QUARRY_SECRET_KEY and QUARRY_OPEN_SECRET_KEY_SEALS not false');
    if (!openSecretKeySeals && keys.length === 0) problems.push('QUARRY_OPEN_SECRET_KEY_SEALS=false needs QUARRY_KEYS: no key would be left to seal with');
    if (problems.length > 0) throw new ConfigError(problems);
    return { keyring: { secretKey, keys, currentKeyId: current, openSecretKeySeals } as KeyringSettings };
  },
  outbound: (vars: Vars) => ({ allowPrivateUrls: allowPrivate(vars) }),
  browser: (vars: Vars) => {
    const [uid, gid] = vars.CHROMIUM_RUN_AS.split(':').map(Number) as [number, number];
    return {
      chromiumRunAs: { uid, gid },
      browser: {
        chromiumPath: vars.CHROMIUM_PATH,
        recycleAfterJobs: vars.BROWSER_RECYCLE_JOBS ?? vars.MINING_BROWSER_RECYCLE_JOBS ?? 50,
        recycleAboveMb: vars.BROWSER_RECYCLE_MB ?? vars.MINING_BROWSER_RECYCLE_MB ?? 1024,
        maxContexts: vars.BROWSER_CONTEXTS ?? vars.MINING_BROWSER_CONTEXTS ?? 5,
      } as BrowserSettings,
    };
  },
  cardTransport: (vars: Vars) => ({ allowLoopbackHttpHotels: vars.ALLOW_LOOPBACK_HTTP_HOTELS === 'true' }),
  vault: (vars: Vars) => {
    const key = vars.VAULT_KEY === undefined ? undefined : Buffer.from(vars.VAULT_KEY, 'base64');
    const keys = vars.VAULT_KEYS ?? [];
    const tokenKey = vars.VAULT_TOKEN_KEY === undefined ? undefined : Buffer.from(vars.VAULT_TOKEN_KEY, 'base64');
    const currentKeyId = vars.VAULT_CURRENT_KEY_ID;
    const problems: string[] = [];
    // The point of a key of its own: a leak of the general key must not open cards.
    const secretKey = vars.QUARRY_SECRET_KEY === undefined ? undefined : Buffer.from(vars.QUARRY_SECRET_KEY, 'base64');
    if (key && secretKey && key.equals(secretKey)) problems.push('VAULT_KEY must differ from QUARRY_SECRET_KEY');
    if (secretKey && keys.some((vaultKey) => vaultKey.material.equals(secretKey))) problems.push('VAULT_KEYS must differ from QUARRY_SECRET_KEY');
    if (tokenKey && secretKey && tokenKey.equals(secretKey)) problems.push('VAULT_TOKEN_KEY must differ from QUARRY_SECRET_KEY');
    if (keys.some((vaultKey) => vaultKey.id === 'vault')) problems.push('VAULT_KEYS: the id "vault" is the key of VAULT_KEY: give another id');
    if (keys.length > 0 && currentKeyId === undefined) problems.push('VAULT_CURRENT_KEY_ID is required with VAULT_KEYS: the id of the key new cards are sealed with');
    if (currentKeyId !== undefined && !(currentKeyId === 'vault' ? key : keys.some((vaultKey) => vaultKey.id === currentKeyId))) {
      problems.push(`VAULT_CURRENT_KEY_ID ${currentKeyId} is not a key of VAULT_KEYS${currentKeyId === 'vault' ? ' (vault needs VAULT_KEY)' : ''}`);
    }
    if (keys.length > 0 && !key && !tokenKey) problems.push('VAULT_TOKEN_KEY is required with VAULT_KEYS when VAULT_KEY is not set: the key card tokens are checked with');
    if (problems.length > 0) throw new ConfigError(problems);
    return {
      vault: { key, keys, currentKeyId, tokenKey, cvvTtlMs: vars.VAULT_CVV_TTL_SECONDS * 1000, cvvBookingHoldMs: vars.BOOKING_JOB_TIMEOUT_MS, cardRetentionMs: vars.VAULT_CARD_RETENTION_HOURS * 3600_000 } as VaultSettings,
    };
  },
  auth: (vars: Vars) => ({
    jwt: { jwksUrl: vars.JWT_JWKS_URL as string | undefined, issuer: vars.JWT_ISSUER, audience: vars.JWT_AUDIENCE },
    authCacheMs: vars.AUTH_CACHE_MS,
    /** Failed authentications allowed per client address and per client id within the window, across all processes. */
    authFailures: { perAddress: vars.AUTH_FAILURES_PER_ADDRESS, perClient: vars.AUTH_FAILURES_PER_CLIENT, windowSeconds: vars.AUTH_FAILURE_WINDOW_SECONDS },
  }),
  retrieval: (vars: Vars) => ({
    retrievalCache: { maxBytes: vars.RETRIEVAL_CACHE_MB * 1024 * 1024, ttlMs: vars.RETRIEVAL_CACHE_TTL_MS } as RetrievalCacheSettings,
    // Announced by Postgres at every commit, so the TTL only bounds memory held by finished bookings.
    bookingStatusCache: { maxBytes: vars.BOOKING_STATUS_CACHE_MB * 1024 * 1024, ttlMs: 10 * 60_000 },
  }),
  rates: (vars: Vars) => ({
    rates: {
      horizonDays: vars.RATES_HORIZON_DAYS,
      nights: [...new Set(vars.RATES_NIGHTS.split(',').map((nights) => Number(nights.trim())))],
      freshnessMs: vars.RATES_FRESHNESS_MS,
      refreshNearMs: vars.RATES_REFRESH_NEAR_MS,
      refreshMidMs: vars.RATES_REFRESH_MID_MS,
      refreshFarMs: vars.RATES_REFRESH_FAR_MS,
      scheduleEveryMs: vars.RATES_SCHEDULE_EVERY_MS,
      pullDeadlineMs: vars.RATES_PULL_DEADLINE_MS,
      sourceTimeoutMs: vars.RATES_SOURCE_TIMEOUT_MS,
      sourceConcurrency: vars.RATES_SOURCE_CONCURRENCY,
      sourcePerSecond: vars.RATES_SOURCE_PER_SECOND,
      pushTimeoutMs: vars.RATES_PUSH_TIMEOUT_MS,
      pushBackoffBaseMs: vars.RATES_PUSH_BACKOFF_BASE_MS,
      pushBackoffMaxMs: vars.RATES_PUSH_BACKOFF_MAX_MS,
      pushSuspendAfterMs: vars.RATES_PUSH_SUSPEND_AFTER_MS,
      chromiumPath: vars.RATES_CHROMIUM_PATH,
      pushCacheBytes: vars.RATES_PUSH_CACHE_MB * 1024 * 1024,
      pullCacheBytes: vars.RATES_PULL_CACHE_MB * 1024 * 1024,
      pushMaxBytes: vars.RATES_PUSH_MAX_MB * 1024 * 1024,
    } as RatesSettings,
  }),
  batches: (vars: Vars) => ({
    batches: {
      batch: { concurrency: vars.MINING_BATCH_CONCURRENCY, ratePerMinute: vars.MINING_BATCH_RATE_PER_MINUTE },
      autoPause: { window: vars.MINING_AUTOPAUSE_WINDOW, minSuccessRate: vars.MINING_AUTOPAUSE_MIN_SUCCESS_RATE },
      maxCsvBytes: vars.MINING_CSV_MAX_BYTES,
    } as BatchSettings,
  }),
  mining: (vars: Vars) => ({
    mining: {
      pageTimeoutMs: vars.MINING_PAGE_TIMEOUT_MS,
      batchPollMs: vars.MINING_BATCH_POLL_MS,
      browser: { enabled: vars.MINING_BROWSER === 'on', probeDepth: vars.MINING_PROBE_DEPTH },
      atsEndpoints: Object.fromEntries(Object.entries(vars.MINING_ATS_ENDPOINTS ?? {}).filter(([, url]) => url !== undefined)) as Partial<Record<AtsEndpointName, string>>,
    } as MiningSettings,
  }),
  applications: (vars: Vars) => ({
    applications: {
      maxFileBytes: Math.round(vars.APPLY_MAX_FILE_MB * 1024 * 1024),
      retentionDays: vars.APPLY_RETENTION_DAYS,
      concurrency: vars.APPLY_CONCURRENCY,
      hostConcurrency: vars.APPLY_HOST_CONCURRENCY,
      hostPerSecond: vars.APPLY_HOST_PER_SECOND,
      purgeEveryMs: vars.APPLY_PURGE_EVERY_MS,
      reconcileEveryMs: vars.APPLY_RECONCILE_EVERY_MS,
      strandedAfterMs: vars.APPLY_STRANDED_AFTER_MS,
      timeoutMs: vars.APPLY_TIMEOUT_MS,
    } as ApplicationsSettings,
  }),
  callbacks: (vars: Vars) => {
    // One client's events in flight may be one per job: were its cap near the process's job slots, one
    // slow receiver would hold every slot of a process and the other clients' callbacks would wait.
    if (vars.CALLBACK_CONCURRENCY < 2 * vars.CALLBACK_CLIENT_CONCURRENCY) {
      throw new ConfigError(['CALLBACK_CONCURRENCY must be at least twice CALLBACK_CLIENT_CONCURRENCY, so that one slow receiver holds at most half of a process\'s deliveries']);
    }
    return { callbacks: {
      concurrency: vars.CALLBACK_CONCURRENCY,
      clientConcurrency: vars.CALLBACK_CLIENT_CONCURRENCY,
      eventsPerJob: 25,
      timeoutMs: vars.CALLBACK_TIMEOUT_MS,
      retryBaseMs: vars.CALLBACK_RETRY_BASE_MS,
      retryMaxMs: vars.CALLBACK_RETRY_MAX_MS,
      giveUpAfterMs: vars.CALLBACK_GIVE_UP_AFTER_MS,
      relayPollMs: vars.CALLBACK_RELAY_POLL_MS,
      retentionMs: vars.CALLBACK_RETENTION_DAYS * 86_400_000,
    } as CallbackSettings };
  },
  bookings: (vars: Vars) => ({
    bookings: {
      concurrency: vars.BOOKING_CONCURRENCY,
      sourceTimeoutMs: vars.BOOKING_SOURCE_TIMEOUT_MS,
      priceHoldMs: vars.BOOKING_PRICE_HOLD_MS,
      inputTimeoutMs: vars.BOOKING_INPUT_TIMEOUT_MS,
      jobTimeoutMs: vars.BOOKING_JOB_TIMEOUT_MS,
      tdsTimeoutMs: vars.BOOKING_TDS_TIMEOUT_MS,
      tdsPollMs: vars.BOOKING_TDS_POLL_MS,
      sweepEveryMs: vars.BOOKING_SWEEP_EVERY_MS,
      checkoutLeaseMs: vars.BOOKING_CHECKOUT_LEASE_MS,
      browserContexts: vars.BOOKING_BROWSER_CONTEXTS,
      searchPages: vars.BOOKING_SEARCH_PAGES,
    } as BookingsSettings,
  }),
  dashboard: (vars: Vars) => {
    const oidcSet = oidcVariables.filter((name) => vars[name] !== undefined);
    if (oidcSet.length > 0 && oidcSet.length < oidcVariables.length) {
      throw new ConfigError(oidcVariables.filter((name) => vars[name] === undefined).map((name) => `${name} is required when dashboard single sign-on is configured`));
    }
    const dashboardOidc: OidcSettings | undefined =
      vars.DASHBOARD_OIDC_ISSUER && vars.DASHBOARD_OIDC_CLIENT_ID && vars.DASHBOARD_OIDC_CLIENT_SECRET && vars.DASHBOARD_OIDC_ADMIN_CLIENT_ID && vars.DASHBOARD_PUBLIC_URL
        ? {
            issuer: vars.DASHBOARD_OIDC_ISSUER,
            clientId: vars.DASHBOARD_OIDC_CLIENT_ID,
            clientSecret: vars.DASHBOARD_OIDC_CLIENT_SECRET,
            adminClientId: vars.DASHBOARD_OIDC_ADMIN_CLIENT_ID,
            publicUrl: vars.DASHBOARD_PUBLIC_URL.replace(/\/$/, ''),
            allowedEmails: vars.DASHBOARD_OIDC_ALLOWED_EMAILS.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean),
          }
        : undefined;
    return { dashboardOidc };
  },
  mailDomains: (vars: Vars) => ({ mailDomains: vars.MAIL_DOMAINS.split(',').map((domain) => domain.trim().toLowerCase()).filter(Boolean) }),
  mail: (vars: Vars) => ({
    mail: {
      relaySender: vars.MAIL_RELAY_SENDER.toLowerCase(),
      relayUrl: vars.MAIL_RELAY_URL,
      hostname: vars.MAIL_HOSTNAME,
      // A PEM may come through the environment with literal "\n" sequences (one-line env files).
      dkim: { selector: vars.MAIL_DKIM_SELECTOR, privateKey: vars.MAIL_DKIM_PRIVATE_KEY?.replace(/\\n/g, '\n') },
      mxPort: vars.MAIL_MX_PORT,
      dnsServers: vars.MAIL_DNS_SERVERS?.split(',').map((server) => server.trim()),
      deliveryConcurrency: vars.MAIL_DELIVERY_CONCURRENCY,
      retryBaseMs: vars.MAIL_RETRY_BASE_MS,
      retryMaxMs: vars.MAIL_RETRY_MAX_MS,
      maxQueueLifetimeMs: vars.MAIL_MAX_QUEUE_LIFETIME_MS,
    } as MailSettings,
  }),
  mailbox: (vars: Vars) => ({
    mailbox: {
      watch: vars.MAILBOX_WATCH === 'true',
      leaseMs: vars.MAILBOX_LEASE_MS,
      maxConnections: vars.MAILBOX_MAX_CONNECTIONS,
      pollMs: vars.MAILBOX_POLL_MS,
      folders: vars.MAILBOX_FOLDERS.split(',').map((folder) => folder.trim()),
      loginRetryMs: vars.MAILBOX_LOGIN_RETRY_MS,
      maxLoginFailures: vars.MAILBOX_MAX_LOGIN_FAILURES,
      seenRetentionMs: vars.MAILBOX_SEEN_RETENTION_DAYS * 86_400_000,
    } as MailboxSettings,
  }),
  smtp: (vars: Vars) => ({
    smtpPort: vars.SMTP_PORT,
    smtp: {
      host: vars.SMTP_HOST,
      maxMessageBytes: vars.SMTP_MAX_MESSAGE_BYTES,
      maxRecipients: vars.SMTP_MAX_RECIPIENTS,
      maxClients: vars.SMTP_MAX_CLIENTS,
      maxConnectionsPerClient: vars.SMTP_MAX_CONNECTIONS_PER_CLIENT,
      busyIdleTimeoutMs: vars.SMTP_BUSY_IDLE_TIMEOUT_MS,
      maxMessagesPerMinutePerIp: vars.SMTP_MAX_MESSAGES_PER_MINUTE_PER_IP,
      greetingDelayMs: vars.SMTP_GREETING_DELAY_MS,
      maxReceivedHeaders: vars.SMTP_MAX_RECEIVED_HEADERS,
      reusePort: vars.SMTP_REUSE_PORT === 'true',
      tls: vars.SMTP_TLS_KEY && vars.SMTP_TLS_CERT ? { key: vars.SMTP_TLS_KEY.replace(/\\n/g, '\n'), cert: vars.SMTP_TLS_CERT.replace(/\\n/g, '\n') } : undefined,
    } as SmtpSettings,
  }),
  /** Where `start --demo` runs its stand-ins for hotels, a careers page, a push receiver and a mailbox. */
  demo: (vars: Vars) => ({ demo: { host: vars.DEMO_HOST, port: vars.DEMO_PORT, smtpPort: vars.DEMO_SMTP_PORT } }),
} satisfies Record<keyof typeof sectionShapes, (vars: Vars) => object>;

type Section = keyof typeof sectionShapes;
type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
type SettingsOf<S extends Section> = UnionToIntersection<ReturnType<(typeof readers)[S]>>;

/**
 * What each role reads, and so validates: a rates worker does not need SMTP settings, and a
 * mining worker needs no secret key (with one, it opens clients' Workday accounts). `all` is the union. The command line's commands read less still.
 */
const sectionsOf = {
  api: ['database', 'process', 'secret', 'keyring', 'outbound', 'browser', 'cardTransport', 'vault', 'auth', 'retrieval', 'dashboard', 'batches', 'rates', 'mailDomains'],
  'mining-worker': ['database', 'process', 'workers', 'accountsKey', 'keyring', 'outbound', 'browser', 'batches', 'mining'],
  'rates-worker': ['database', 'process', 'workers', 'secret', 'keyring', 'outbound', 'browser', 'rates'],
  mail: ['database', 'process', 'workers', 'secret', 'keyring', 'mailDomains', 'mail', 'mailbox', 'smtp'],
  'applications-worker': ['database', 'process', 'workers', 'secret', 'keyring', 'outbound', 'browser', 'mining', 'applications', 'callbacks'],
  'bookings-worker': ['database', 'process', 'workers', 'secret', 'keyring', 'outbound', 'browser', 'cardTransport', 'vault', 'bookings'],
  // `accountsKey` before `secret`: both read QUARRY_SECRET_KEY, and the later shape (required) wins.
  all: ['database', 'process', 'workers', 'accountsKey', 'secret', 'keyring', 'outbound', 'browser', 'cardTransport', 'vault', 'auth', 'retrieval', 'dashboard', 'batches', 'mining', 'rates', 'mailDomains', 'mail', 'mailbox', 'smtp', 'applications', 'callbacks', 'bookings', 'demo'],
  migrate: ['database'],
  clients: ['database', 'secret', 'keyring'],
  callbacks: ['database', 'secret', 'keyring', 'outbound'],
  hotels: ['database', 'cardTransport'],
  accounts: ['database', 'secret', 'keyring', 'mailDomains'],
  keys: ['database', 'secret', 'keyring'],
  vault: ['database', 'process', 'secret', 'vault'],
} as const satisfies Record<string, readonly Section[]>;
export type ConfigScope = keyof typeof sectionsOf;

/** The settings of one role (or command): only the sections it reads. */
export type ConfigFor<Scope extends ConfigScope> = SettingsOf<(typeof sectionsOf)[Scope][number]>;
/** Every setting: what `all` reads. */
export type Config = ConfigFor<'all'>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Parses the environment for one role or command (default: every setting); throws one ConfigError
 * naming every bad variable it reads. Empty strings count as unset.
 */
export function loadConfig<Scope extends ConfigScope = 'all'>(env: NodeJS.ProcessEnv = process.env, scope: Scope = 'all' as Scope): ConfigFor<Scope> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const sections: readonly Section[] = sectionsOf[scope];
  const schema = z.object(Object.assign({}, ...sections.map((section) => sectionShapes[section])) as z.ZodRawShape);
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`));
  }
  const vars = parsed.data as Vars;
  return Object.assign({}, ...sections.map((section) => readers[section](vars))) as ConfigFor<Scope>;
}
