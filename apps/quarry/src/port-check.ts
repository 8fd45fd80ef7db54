// Which ports a start will listen on, and which of them another process already holds. Imports
// node built-ins only: scripts/start.sh runs it before the slow steps (npm install, services,
// Chromium), when the workspace's packages may not be installed yet.
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';

/** One address a start listens on, named by the setting that chooses it. */
export type Listener = { setting: string; hostSetting: string; host: string; port: number };

/**
 * The variables' defaults as packages/config has them (a test holds the two together); only
 * what is needed before the configuration can be loaded.
 */
const defaults: Record<string, string> = {
  HOST: '0.0.0.0',
  PORT: '8080',
  METRICS_PORT: '9464',
  SMTP_HOST: '0.0.0.0',
  SMTP_PORT: '2525',
  SMTP_REUSE_PORT: 'false',
  DEMO_HOST: '127.0.0.77',
  DEMO_PORT: '8090',
  DEMO_SMTP_PORT: '2587',
};

export type ListenerSettings = {
  host: string;
  port: number;
  metricsPort: number;
  /** Only where the mail role runs. */
  smtp?: { host: string; port: number; reusePort: boolean } | undefined;
  /** Only with --demo. */
  demo?: { host: string; port: number; smtpPort: number } | undefined;
};

/** The listeners of one start; port 0 (any free port) and a shared SMTP port (SO_REUSEPORT) cannot be taken, so are left out. */
export function listenersOf(settings: ListenerSettings): Listener[] {
  const listeners: Listener[] = [
    { setting: 'PORT', hostSetting: 'HOST', host: settings.host, port: settings.port },
    { setting: 'METRICS_PORT', hostSetting: 'HOST', host: settings.host, port: settings.metricsPort },
  ];
  if (settings.smtp && !settings.smtp.reusePort)
    listeners.push({ setting: 'SMTP_PORT', hostSetting: 'SMTP_HOST', host: settings.smtp.host, port: settings.smtp.port });
  if (settings.demo) {
    listeners.push({ setting: 'DEMO_PORT', hostSetting: 'DEMO_HOST', host: settings.demo.host, port: settings.demo.port });
    listeners.push({ setting: 'DEMO_SMTP_PORT', hostSetting: 'DEMO_HOST', host: settings.demo.host, port: settings.demo.smtpPort });
  }
  return listeners.filter((listener) => listener.port !== 0);
}

/** The same, read from the environment with the configuration's defaults (before the configuration is loaded). */
export function listenerSettingsOf(env: NodeJS.ProcessEnv, role: string, demo: boolean): ListenerSettings {
  const read = (name: string): string => (env[name] !== undefined && env[name] !== '' ? env[name] : (defaults[name] ?? ''));
  return {
    host: read('HOST'),
    port: Number(read('PORT')),
    metricsPort: Number(read('METRICS_PORT')),
    smtp:
      role === 'all' || role === 'mail'
        ? { host: read('SMTP_HOST'), port: Number(read('SMTP_PORT')), reusePort: read('SMTP_REUSE_PORT') === 'true' }
        : undefined,
    demo: demo ? { host: read('DEMO_HOST'), port: Number(read('DEMO_PORT')), smtpPort: Number(read('DEMO_SMTP_PORT')) } : undefined,
  };
}

/** Tries to listen where the start will, and lets go at once: what fails here would fail the start. */
function tryListen(listener: Listener): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ port: listener.port, host: listener.host, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** What a failed listen means, naming the setting that chose the port and what to do. */
export function describeListenFailure(listener: Listener, code: string): string {
  const where = `${listener.setting}=${listener.port} (on ${listener.hostSetting}=${listener.host})`;
  if (code === 'EADDRINUSE') return `${where} is in use by another process: stop it, or set ${listener.setting} to a free port`;
  if (code === 'EACCES') return `${where} may not be listened on by this user: set ${listener.setting} to a port above 1023`;
  if (code === 'EADDRNOTAVAIL') return `${where}: ${listener.host} is not an address of this machine: set ${listener.hostSetting}`;
  return `${where} cannot be listened on (${code}): set ${listener.setting}`;
}

/** One line per listener that cannot be had, naming its setting and what to do. */
export async function unavailablePorts(listeners: Listener[]): Promise<string[]> {
  const problems: string[] = [];
  for (const listener of listeners) {
    const code = await tryListen(listener);
    if (code !== null) problems.push(describeListenFailure(listener, code));
  }
  return problems;
}

/** `node apps/quarry/src/port-check.ts [start] [--role R] [--demo] …`: exits 1 naming every port that is taken. */
async function checkFromCommandLine(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: false,
    allowPositionals: true,
    options: { role: { type: 'string' }, demo: { type: 'boolean' } },
  });
  const role = typeof values.role === 'string' ? values.role : (process.env.QUARRY_ROLE ?? 'all');
  const problems = await unavailablePorts(listenersOf(listenerSettingsOf(process.env, role, values.demo === true)));
  if (problems.length === 0) return;
  process.stderr.write(problems.map((problem) => `quarry: ${problem}\n`).join(''));
  process.exit(1);
}

if (import.meta.main) await checkFromCommandLine();
