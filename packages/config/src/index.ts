export { ConfigError, configVariableNames, loadConfig } from './config.ts';
export type { ApplicationsSettings, BatchSettings, BookingsSettings, Config, ConfigFor, ConfigScope, MailSettings, MiningSettings, OidcSettings, RatesSettings, RetrievalCacheSettings, SmtpSettings } from './config.ts';
