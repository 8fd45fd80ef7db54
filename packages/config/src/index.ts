export { ConfigError, configVariableNames, loadConfig } from './config.ts';
export type { Config } from './config.ts';
