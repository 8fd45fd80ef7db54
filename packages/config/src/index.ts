export { ConfigError, configVariableNames, loadConfig } from './config.ts';
export type { ApplicationsSettings, BatchSettings, Config, ConfigFor, ConfigScope, MailSettings, MiningSettings, OidcSettings, RatesSettings, RetrievalCacheSettings, SmtpSettings, VaultSettings } from './config.ts';
