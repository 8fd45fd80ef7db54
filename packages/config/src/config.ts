import { ConfigError } from './config-error.ts';
import { applicationsVariables, readApplications } from './sections/applications.ts';
import { authVariables, readAuth } from './sections/auth.ts';
import { batchesVariables, readBatches } from './sections/batches.ts';
import { bookingsVariables, readBookings } from './sections/bookings.ts';
import { browserVariables, readBrowser } from './sections/browser.ts';
import { callbacksVariables, readCallbacks } from './sections/callbacks.ts';
import { cardTransportVariables, readCardTransport } from './sections/card-transport.ts';
import { dashboardVariables, readDashboard } from './sections/dashboard.ts';
import { databaseVariables, readDatabase } from './sections/database.ts';
import { demoVariables, readDemo } from './sections/demo.ts';
import { keyringBorrowed, keyringVariables, readKeyring } from './sections/keyring.ts';
import { mailDomainsVariables, readMailDomains } from './sections/mail-domains.ts';
import { mailVariables, readMail } from './sections/mail.ts';
import { mailboxVariables, readMailbox } from './sections/mailbox.ts';
import { miningVariables, readMining } from './sections/mining.ts';
import { outboundVariables, readOutbound } from './sections/outbound.ts';
import { processVariables, readProcess } from './sections/process.ts';
import { ratesVariables, readRates } from './sections/rates.ts';
import { readRetrieval, retrievalVariables } from './sections/retrieval.ts';
import { optionalSecretKey, readAccountsKey, readSecret, secretVariables } from './sections/secret.ts';
import { defineSection } from './sections/section.ts';
import { readSmtp, smtpVariables } from './sections/smtp.ts';
import { readVault, vaultBorrowed, vaultVariables } from './sections/vault.ts';
import { readWorkers, workersVariables } from './sections/workers.ts';

export { ConfigError } from './config-error.ts';

/**
 * Every section of the settings. Every setting comes from the environment and is documented in the
 * README's Configuration table; each variable is declared by one section (`sections/`), and a
 * section that reads another's variable borrows that declaration.
 */
export const sections = {
  database: defineSection(databaseVariables, {}, readDatabase),
  process: defineSection(processVariables, {}, readProcess),
  workers: defineSection(workersVariables, {}, readWorkers),
  secret: defineSection(secretVariables, {}, readSecret),
  keyring: defineSection(keyringVariables, keyringBorrowed, readKeyring),
  accountsKey: defineSection({}, optionalSecretKey, readAccountsKey),
  outbound: defineSection(outboundVariables, {}, readOutbound),
  browser: defineSection(browserVariables, {}, readBrowser),
  cardTransport: defineSection(cardTransportVariables, {}, readCardTransport),
  vault: defineSection(vaultVariables, vaultBorrowed, readVault),
  auth: defineSection(authVariables, {}, readAuth),
  retrieval: defineSection(retrievalVariables, {}, readRetrieval),
  rates: defineSection(ratesVariables, {}, readRates),
  batches: defineSection(batchesVariables, {}, readBatches),
  mining: defineSection(miningVariables, {}, readMining),
  applications: defineSection(applicationsVariables, {}, readApplications),
  callbacks: defineSection(callbacksVariables, {}, readCallbacks),
  bookings: defineSection(bookingsVariables, {}, readBookings),
  dashboard: defineSection(dashboardVariables, {}, readDashboard),
  mailDomains: defineSection(mailDomainsVariables, {}, readMailDomains),
  mail: defineSection(mailVariables, {}, readMail),
  mailbox: defineSection(mailboxVariables, {}, readMailbox),
  smtp: defineSection(smtpVariables, {}, readSmtp),
  demo: defineSection(demoVariables, {}, readDemo),
};

type SectionName = keyof typeof sections;
type SettingsOfSection<Name extends SectionName> = (typeof sections)[Name] extends { parse: (env: Record<string, string>) => infer Result }
  ? Extract<Result, { ok: true }> extends { read: () => infer Settings }
    ? Settings
    : never
  : never;
type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
type SettingsOf<Names extends SectionName> = UnionToIntersection<{ [Name in Names]: SettingsOfSection<Name> }[Names]>;

/** The names of every variable the configuration reads (what `npm start` records for the CLI). */
export const configVariableNames: readonly string[] = Object.values(sections).flatMap((section) => Object.keys(section.variables));

/**
 * What each role reads, and so validates: a rates worker does not need SMTP settings, and a
 * mining worker needs no secret key (with one, it opens clients' Workday accounts). `all` is the union. The command line's commands read less still.
 */
const sectionsOf = {
  api: [
    'database',
    'process',
    'secret',
    'keyring',
    'outbound',
    'browser',
    'cardTransport',
    'vault',
    'auth',
    'retrieval',
    'dashboard',
    'batches',
    'rates',
    'mailDomains',
  ],
  'mining-worker': ['database', 'process', 'workers', 'accountsKey', 'keyring', 'outbound', 'browser', 'batches', 'mining'],
  'rates-worker': ['database', 'process', 'workers', 'secret', 'keyring', 'outbound', 'browser', 'rates'],
  mail: ['database', 'process', 'workers', 'secret', 'keyring', 'mailDomains', 'mail', 'mailbox', 'smtp'],
  'applications-worker': [
    'database',
    'process',
    'workers',
    'secret',
    'keyring',
    'outbound',
    'browser',
    'mining',
    'applications',
    'callbacks',
  ],
  'bookings-worker': ['database', 'process', 'workers', 'secret', 'keyring', 'outbound', 'browser', 'cardTransport', 'vault', 'bookings'],
  all: [
    'database',
    'process',
    'workers',
    'accountsKey',
    'secret',
    'keyring',
    'outbound',
    'browser',
    'cardTransport',
    'vault',
    'auth',
    'retrieval',
    'dashboard',
    'batches',
    'mining',
    'rates',
    'mailDomains',
    'mail',
    'mailbox',
    'smtp',
    'applications',
    'callbacks',
    'bookings',
    'demo',
  ],
  migrate: ['database'],
  clients: ['database', 'secret', 'keyring'],
  callbacks: ['database', 'secret', 'keyring', 'outbound'],
  hotels: ['database', 'cardTransport'],
  accounts: ['database', 'secret', 'keyring', 'mailDomains'],
  keys: ['database', 'secret', 'keyring'],
  vault: ['database', 'process', 'secret', 'vault'],
} as const satisfies Record<string, readonly SectionName[]>;
export type ConfigScope = keyof typeof sectionsOf;

/** The settings of one role (or command): only the sections it reads. */
export type ConfigFor<Scope extends ConfigScope> = SettingsOf<(typeof sectionsOf)[Scope][number]>;
/** Every setting: what `all` reads. */
export type Config = ConfigFor<'all'>;

export type RatesSettings = Config['rates'];
export type BatchSettings = Config['batches'];
export type BrowserSettings = Config['browser'];
export type MiningSettings = Config['mining'];
export type ApplicationsSettings = Config['applications'];
export type KeyringSettings = Config['keyring'];
export type VaultSettings = Config['vault'];
export type BookingsSettings = Config['bookings'];
export type OidcSettings = NonNullable<Config['dashboardOidc']>;
export type RetrievalCacheSettings = Config['retrievalCache'];
export type MailSettings = Config['mail'];
export type MailboxSettings = Config['mailbox'];
export type SmtpSettings = Config['smtp'];

/**
 * Parses the environment for one role or command (default: every setting); throws one ConfigError
 * naming every bad variable it reads. Empty strings count as unset.
 */
export function loadConfig<Scope extends ConfigScope = 'all'>(
  env: NodeJS.ProcessEnv = process.env,
  scope: Scope = 'all' as Scope,
): ConfigFor<Scope> {
  const present: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') present[name] = value;
  const names: readonly SectionName[] = sectionsOf[scope];
  const parsed = names.map((name) => sections[name].parse(present));
  // A variable two sections read (one declares it, the other borrows it) is named once.
  const problems = [...new Set(parsed.flatMap((result) => (result.ok ? [] : result.problems)))];
  if (problems.length > 0) throw new ConfigError(problems);
  // Reached only when every section parsed; a reader may still refuse a combination of variables.
  const settings = parsed.map((result) => (result.ok ? result.read() : {}));
  return Object.assign({}, ...settings) as ConfigFor<Scope>;
}
