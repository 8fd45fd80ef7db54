export { ConfigError, loadConfig } from './config.ts';
export type { ApplicationsSettings, Config, ConfigFor, ConfigScope, MailSettings, MiningSettings, OidcSettings, RatesSettings, RetrievalCacheSettings, SmtpSettings } from './config.ts';
