#!/usr/bin/env node
// The `quarry` command. Tracing must start before express, pg and ioredis are first loaded, so
// everything that imports them is loaded dynamically after `startTracing`.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type ConfigFor, type ConfigScope } from '@quarry/config';
import { startTracing } from '@quarry/observability';

const roles = ['api', 'mining-worker', 'rates-worker', 'mail', 'applications-worker', 'bookings-worker', 'all'] as const;
type Role = (typeof roles)[number];

const usage = `Usage:
  quarry start [--role api|mining-worker|rates-worker|mail|applications-worker|bookings-worker|all]   (default: all)
  quarry start --demo   (every role, plus demo hotels, careers page, push receiver and mailbox)
  quarry migrate
  quarry clients create --name NAME --scopes recruitment,forwarding,hotels,booking,admin
  quarry clients list
  quarry clients revoke CLIENT_ID
  quarry clients frame-origins CLIENT_ID [ORIGIN…] [--clear]   (origins that may frame the client's 3-D Secure pages)
  quarry hotels add --json '{"hotelId":"…","name":"…","ibe":"…","address":"…","countryCode":"gb","bookingPageUrl":"https://…","source":{…}}'
  quarry hotels list | remove HOTEL_ID | grant CLIENT_ID HOTEL_ID… | revoke CLIENT_ID HOTEL_ID…
  quarry accounts load --json '{"accounts":[{"email":"…","password":"…","imap":{"host":"…","port":993,"secure":true}}]}' | --file accounts.json
  quarry accounts list
  quarry callbacks list | show CLIENT_ID | set CLIENT_ID --url URL | clear CLIENT_ID | rotate CLIENT_ID [--overlap-hours 24]
  quarry keys generate [--id ID] | status | rotate [--batch-size 500] [--passes 10]   (the keyring that seals stored secrets)
  quarry vault status | rotate [--batch-size 500] [--passes 10]   (the card vault's keys: VAULT_KEY, VAULT_KEYS)`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** Reads only the settings the role or command uses (a rates worker does not need SMTP settings). */
function configOrExit<Scope extends ConfigScope>(scope: Scope): ConfigFor<Scope> {
  try {
    return loadConfig(process.env, scope);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`quarry: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Commands other than `npm start` use the configuration the last `npm start` recorded (explicit
 * environment wins), and say which database they work on.
 */
async function useRecordedConfig(): Promise<void> {
  const { applyLocalConfig, describeDatabase } = await import('./local-config.ts');
  const path = process.env.QUARRY_LOCAL_CONFIG;
  let recorded = false;
  try {
    recorded = path ? applyLocalConfig(path, process.env) : false;
  } catch (error) {
    fail(`quarry: ${(error as Error).message}`);
  }
  const source = recorded ? `the environment, then what npm start recorded in ${path}` : 'the environment';
  process.stderr.write(`quarry: database ${describeDatabase(configOrExit('migrate').databaseUrl)} (settings from ${source})\n`);
}

/** Exits naming each port of this start that another process holds (or that cannot be listened on). */
async function exitIfPortsTaken(config: ConfigFor<Role>, demo: boolean): Promise<void> {
  const { listenersOf, unavailablePorts } = await import('./port-check.ts');
  const smtp =
    'smtp' in config && 'smtpPort' in config
      ? { host: config.smtp.host, port: config.smtpPort, reusePort: config.smtp.reusePort }
      : undefined;
  const demoSites = demo && 'demo' in config ? config.demo : undefined;
  const problems = await unavailablePorts(
    listenersOf({ host: config.host, port: config.port, metricsPort: config.metricsPort, smtp, demo: demoSites }),
  );
  if (problems.length > 0) {
    process.stderr.write(problems.map((problem) => `quarry: ${problem}\n`).join(''));
    process.exit(1);
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string', default: 'all' },
      demo: { type: 'boolean' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      help: { type: 'boolean' },
      json: { type: 'string' },
      file: { type: 'string' },
      url: { type: 'string' },
      'overlap-hours': { type: 'string' },
      clear: { type: 'boolean' },
      id: { type: 'string' },
      'batch-size': { type: 'string' },
      passes: { type: 'string' },
    },
  });
  const [command, subcommand, ...rest] = positionals;
  if (values.help || !command) fail(usage);

  if (command === 'start') {
    const role = values.role as Role;
    if (!roles.includes(role)) fail(`quarry: unknown role "${values.role}"\n${usage}`);
    // `npm start` records its settings; any other start (`npm run quarry -- start --role …` beside
    // it) runs with them, so the roles of one machine share one database, Redis and secret key.
    const records = process.env.QUARRY_RECORDS_SETTINGS === '1';
    if (!records && process.env.QUARRY_LOCAL_CONFIG) await useRecordedConfig();
    const config = configOrExit(role);
    // Before anything slow (migrations, the demo's sites, Chromium): a taken port names its setting.
    await exitIfPortsTaken(config, values.demo === true);
    if (records && process.env.QUARRY_LOCAL_CONFIG)
      (await import('./local-config.ts')).recordLocalConfig(process.env.QUARRY_LOCAL_CONFIG, process.env);
    const tracing = startTracing({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint, role });
    if (values.demo) {
      if (role !== 'all' && role !== 'api') fail('quarry: --demo runs with --role all (or api)');
      const { startDemo } = await import('./demo-mode.ts');
      await startDemo(config, role, tracing).catch((error: unknown) => {
        process.stderr.write(`quarry: ${(error as Error).message}\n`);
        process.exit(1);
      });
      return;
    }
    const { startRoles } = await import('./start-roles.ts');
    await startRoles(config, role, tracing);
    return;
  }
  if (!['migrate', 'clients', 'hotels', 'accounts', 'callbacks', 'keys', 'vault'].includes(command))
    fail(`quarry: unknown command "${command}"\n${usage}`);
  await useRecordedConfig();
  if (command === 'migrate') {
    const config = configOrExit('migrate');
    const { migrateToLatest } = await import('@quarry/db');
    const applied = await migrateToLatest(config.databaseUrl);
    process.stdout.write(`${JSON.stringify({ applied })}\n`);
    return;
  }
  if (command === 'clients') {
    const config = configOrExit('clients');
    const { runClientsCommand } = await import('./clients.command.ts');
    await runClientsCommand(config, subcommand, {
      name: values.name,
      scopes: values.scopes,
      clientId: rest[0] ?? undefined,
      origins: rest.slice(1),
      clear: values.clear === true,
    }).catch((error: unknown) => fail(`quarry: ${(error as Error).message}`));
    return;
  }
  if (command === 'hotels') {
    const config = configOrExit('hotels');
    const { runHotelsCommand } = await import('./hotels.command.ts');
    await runHotelsCommand(config, subcommand, rest, { json: values.json }).catch((error: unknown) =>
      fail(`quarry: ${(error as Error).message}`),
    );
    return;
  }
  if (command === 'accounts') {
    const config = configOrExit('accounts');
    const { runAccountsCommand } = await import('./accounts.command.ts');
    await runAccountsCommand(config, subcommand, { json: values.json, file: values.file }).catch((error: unknown) =>
      fail(`quarry: ${(error as Error).message}`),
    );
    return;
  }
  if (command === 'callbacks') {
    const config = configOrExit('callbacks');
    const { runCallbacksCommand } = await import('./callbacks.command.ts');
    await runCallbacksCommand(config, subcommand, rest, { url: values.url, overlapHours: values['overlap-hours'] }).catch(
      (error: unknown) => fail(`quarry: ${(error as Error).message}`),
    );
    return;
  }
  if (command === 'keys') {
    const config = configOrExit('keys');
    const { runKeysCommand } = await import('./keys.command.ts');
    await runKeysCommand(config, subcommand, { id: values.id, batchSize: values['batch-size'], passes: values.passes }).catch(
      (error: unknown) => fail(`quarry: ${(error as Error).message}`),
    );
    return;
  }
  if (command === 'vault') {
    const config = configOrExit('vault');
    const { runVaultCommand } = await import('./vault.command.ts');
    await runVaultCommand(config, subcommand, { batchSize: values['batch-size'], passes: values.passes }).catch((error: unknown) =>
      fail(`quarry: ${(error as Error).message}`),
    );
    return;
  }
  fail(`quarry: unknown command "${command}"\n${usage}`);
}

await main(process.argv.slice(2));
