import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * One network namespace of the suite's own, joined to the machine by a veth pair on addresses of
 * its own (a /30 out of 10.213.0.0/16 that no interface of the machine uses). A worker started in
 * it reaches the private Postgres and Redis, and the doubles, only through that pair, so the suite
 * can cut it off from some of them (or all) while every other process keeps running.
 */
export type WorkerNamespace = {
  name: string;
  /** The machine's end of the pair: the private stores listen on it, the worker dials it. */
  hostAddress: string;
  /** The namespace's end (the worker's source address). */
  address: string;
  /** Command and arguments that run `command` inside the namespace. */
  exec(command: string, args: string[]): [string, string[]];
  /** Drops, silently and both ways, what goes to the given TCP ports of the machine's end (`stores`), or everything but loopback (`all`). */
  cut(what: { ports: number[] } | 'all'): Promise<void>;
  heal(): Promise<void>;
};

export type FaultNetwork = {
  namespaces: WorkerNamespace[];
  /**
   * Where the doubles listen: addresses of the machine's end of the first pair, reached from the
   * machine and from every namespace. Each is a host of its own (politeness limits are per host).
   */
  worldAddresses: string[];
  remove(): Promise<void>;
};

const prefix = 'quarry-faults-';

async function ip(...args: string[]): Promise<void> {
  await run('ip', args);
}

async function nft(namespace: string, script: string): Promise<void> {
  const child = execFile('ip', ['netns', 'exec', namespace, 'nft', '-f', '-']);
  const done = new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`nft in ${namespace} failed (${code}): ${stderr}`))));
  });
  child.stdin?.end(script);
  await done;
}

/** Namespaces a suite that died left behind (its pid is gone): removed before a run makes its own. */
async function removeLeftovers(): Promise<void> {
  let names: string[] = [];
  try {
    names = readdirSync('/run/netns');
  } catch {
    return;
  }
  for (const name of names.filter((entry) => entry.startsWith(prefix))) {
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    await ip('netns', 'del', name).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A 10.213.x.0/24 that no address of the machine is in (another engineer's suite may hold one). */
async function freeBlock(): Promise<number> {
  const { stdout } = await run('ip', ['-o', '-4', 'addr', 'show']);
  const used = new Set([...stdout.matchAll(/inet 10\.213\.(\d+)\./g)].map((match) => Number(match[1])));
  for (let offset = 0; offset < 250; offset += 1) {
    const block = ((process.pid + offset) % 250) + 1;
    if (!used.has(block)) return block;
  }
  throw new Error("no free 10.213.x.0/24 block for the fault suite's namespaces");
}

/**
 * Makes `count` namespaces, each with its veth pair, loopback up and a default route through the
 * machine's end. Needs root, `ip` and `nft` (nftables); everything is removed by `remove()`.
 */
export async function createFaultNetwork(count: number, worldHosts = 1): Promise<FaultNetwork> {
  await removeLeftovers();
  const block = await freeBlock();
  const namespaces: WorkerNamespace[] = [];
  const worldAddresses: string[] = [`10.213.${block}.1`];
  const tag = String(process.pid % 100_000);
  try {
    for (let index = 0; index < count; index += 1) {
      const name = `${prefix}${process.pid}-${index}`;
      const outside = `qf${tag}h${index}`;
      const inside = `qf${tag}n${index}`;
      const hostAddress = `10.213.${block}.${index * 4 + 1}`;
      const address = `10.213.${block}.${index * 4 + 2}`;
      await ip('netns', 'add', name);
      await ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
      await ip('link', 'set', inside, 'netns', name);
      await ip('addr', 'add', `${hostAddress}/30`, 'dev', outside);
      await ip('link', 'set', outside, 'up');
      await ip('netns', 'exec', name, 'ip', 'addr', 'add', `${address}/30`, 'dev', inside);
      await ip('netns', 'exec', name, 'ip', 'link', 'set', inside, 'up');
      await ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
      await ip('netns', 'exec', name, 'ip', 'route', 'add', 'default', 'via', hostAddress);
      namespaces.push({
        name,
        hostAddress,
        address,
        exec: (command, args) => ['ip', ['netns', 'exec', name, command, ...args]],
        async cut(what) {
          // A partition drops packets without a word (no reset, no ICMP): both ends wait, as when a
          // switch or a cloud's network fails, until TCP's own timers or the heal decide.
          const match = what === 'all' ? 'iifname != "lo"' : `ip saddr ${hostAddress} tcp sport { ${what.ports.join(', ')} }`;
          const matchOut = what === 'all' ? 'oifname != "lo"' : `ip daddr ${hostAddress} tcp dport { ${what.ports.join(', ')} }`;
          await nft(
            name,
            `table inet quarry_faults {\n chain in { type filter hook input priority 0; policy accept; ${match} drop; }\n chain out { type filter hook output priority 0; policy accept; ${matchOut} drop; }\n}\n`,
          );
        },
        async heal() {
          await nft(name, 'flush ruleset\n');
        },
      });
    }
    for (let index = 1; index < worldHosts; index += 1) {
      worldAddresses.push(`10.213.${block}.${200 + index}`);
      await ip('addr', 'add', `10.213.${block}.${200 + index}/32`, 'dev', `qf${tag}h0`);
    }
  } catch (error) {
    for (const namespace of namespaces) await ip('netns', 'del', namespace.name).catch(() => undefined);
    throw error;
  }
  return {
    namespaces,
    worldAddresses,
    async remove() {
      // Deleting a namespace deletes its end of the pair, and with it the machine's end.
      for (const namespace of namespaces) await ip('netns', 'del', namespace.name).catch(() => undefined);
    },
  };
}
