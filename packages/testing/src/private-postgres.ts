import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const run = promisify(execFile);

export type PrivatePostgres = {
  /** Server URL (database `postgres`); point a test database's name at it with `databaseUrl`. */
  url: string;
  port: number;
  databaseUrl(name: string): string;
  /** `pg_ctl stop -m immediate`: every connection is cut at once, as when the server dies. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  remove(): Promise<void>;
};

function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL under /usr/lib/postgresql: apt-get install postgresql');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/**
 * A PostgreSQL server of this test's own, on a free port, which the test may stop and start:
 * outage tests must never stop the machine's shared server. pg_ctl refuses to run as root, so
 * when the tests run as root the server runs as the `postgres` user in a folder it owns. `listen`
 * adds addresses of the test's own (a veth end that a network namespace reaches it through), and
 * `trust` the client ranges (CIDR) allowed in without a password besides loopback.
 */
export async function startPrivatePostgres(options: { listen?: string[]; trust?: string[] } = {}): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const folder = mkdtempSync(join(tmpdir(), 'quarry-pg-'));
  const data = join(folder, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(folder, Number(stdout.trim()), Number(group.trim()));
  }
  const as = (command: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
  await as(`${bin}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  if (options.trust?.length)
    appendFileSync(join(data, 'pg_hba.conf'), options.trust.map((range) => `host all all ${range} trust\n`).join(''));
  const port = await freePort();
  const settings = `-p ${port} -k ${folder} -c listen_addresses=${['127.0.0.1', ...(options.listen ?? [])].join(',')} -c fsync=off -c max_connections=200`;
  const start = async () => {
    await as(`${bin}/pg_ctl`, ['-D', data, '-o', settings, '-l', join(folder, 'log'), '-w', 'start']);
  };
  const stop = async () => {
    await as(`${bin}/pg_ctl`, ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    databaseUrl: (name) => `postgres://postgres@127.0.0.1:${port}/${name}`,
    stop,
    start,
    async remove() {
      await stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
