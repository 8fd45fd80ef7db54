export { ConfigError, configVariableNames, loadConfig } from './config.ts';
export type {
  ApplicationsSettings,
  BatchSettings,
  BookingsSettings,
  BrowserSettings,
  Config,
  ConfigFor,
  ConfigScope,
  KeyringSettings,
  MailboxSettings,
  MailSettings,
  MiningSettings,
  OidcSettings,
  RatesSettings,
  RetrievalCacheSettings,
  SmtpSettings,
  VaultSettings,
} from './config.ts';
