import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { configVariableNames } from '@quarry/config';

/**
 * The configuration `npm start` ran with, recorded so `npm run quarry -- …` beside it uses the same
 * database, Redis and secret key: otherwise a server started with its own DATABASE_URL and a CLI
 * run without it write to two databases, and the clients the CLI creates get 401 everywhere.
 * The file is only written and read when `QUARRY_LOCAL_CONFIG` names it (scripts/start.sh and
 * scripts/quarry.sh set it to .data/quarry.json); deployments never use it.
 */
function parseRecorded(path: string, text: string): Record<string, string> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not JSON (${(error as Error).message}); delete it and run npm start again`);
  }
  const variables = (document as { variables?: unknown } | null)?.variables;
  if (!variables || typeof variables !== 'object' || Object.values(variables).some((value) => typeof value !== 'string')) {
    throw new Error(`${path}: "variables" must map names to strings; delete it and run npm start again`);
  }
  return variables as Record<string, string>;
}

const isSet = (value: string | undefined) => value !== undefined && value !== '';

/** Writes the Quarry variables set in `env` (the secret key among them, hence mode 600). */
export function recordLocalConfig(path: string, env: NodeJS.ProcessEnv): void {
  const variables = Object.fromEntries(configVariableNames.filter((name) => isSet(env[name])).map((name) => [name, env[name] as string]));
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ variables }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/**
 * Fills the variables `env` does not set from the recorded file (explicit environment wins).
 * Returns whether a recorded configuration was read.
 */
export function applyLocalConfig(path: string, env: NodeJS.ProcessEnv): boolean {
  if (!existsSync(path)) return false;
  for (const [name, value] of Object.entries(parseRecorded(path, readFileSync(path, 'utf8')))) {
    if (configVariableNames.includes(name) && !isSet(env[name])) env[name] = value;
  }
  return true;
}

/** `host:port/database` of a Postgres URL: enough to tell databases apart, never the credentials. */
export function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}
