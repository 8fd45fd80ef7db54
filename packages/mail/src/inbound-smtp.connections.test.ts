import { connect, type Socket } from 'node:net';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createInboundSmtpServer, type InboundSettings, type InboundSmtpServer } from './inbound-smtp.server.ts';
import { createSrs } from './srs.ts';

/** Connection slots of the inbound MX, with real sockets from two loopback addresses. */
let database: TestDatabase;
let pool: Pool;
const servers: InboundSmtpServer[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  database = await createTestDatabase('mail_connections');
  pool = createPool(database.url, 2);
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function start(settings: Partial<InboundSettings>): Promise<number> {
  const server = createInboundSmtpServer(
    {
      db: pool,
      srs: createSrs({ secret: Buffer.alloc(32, 1), domain: 'relay.test' }),
      accept: async () => ({ messageId: 'unused' }),
      now: () => new Date(),
    },
    {
      hostname: 'mx.quarry.test',
      domains: ['fwd.test'],
      srsDomain: 'relay.test',
      maxMessageBytes: 100_000,
      maxRecipients: 10,
      maxClients: 100,
      maxMessagesPerMinutePerIp: 1000,
      greetingDelayMs: 0,
      maxReceivedHeaders: 30,
      tls: undefined,
      ...settings,
    },
  );
  servers.push(server);
  return server.listen(0, '127.0.0.1');
}

type Peer = { socket: Socket; greeting: Promise<string>; closed: Promise<string> };

/** A raw client: its first reply line, and everything it read once the server closed it. */
function open(port: number, from = '127.0.0.1'): Peer {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  let received = '';
  socket.setEncoding('utf8');
  const greeting = new Promise<string>((resolve) => {
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.includes('\r\n')) resolve(received.split('\r\n')[0] ?? '');
    });
  });
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('error', () => {});
  return { socket, greeting, closed };
}

describe('connections per client address', () => {
  it('refuses a connection past the per-address cap with 421, while other addresses are still served', async () => {
    const port = await start({ maxConnectionsPerClient: 3 });
    const held = [open(port), open(port), open(port)];
    for (const peer of held) expect(await peer.greeting).toMatch(/^220 /);
    const fourth = open(port);
    expect(await fourth.greeting).toBe('421 4.7.0 mx.quarry.test Error: too many connections from 127.0.0.1');
    await fourth.closed;
    expect(await open(port, '127.0.0.2').greeting).toMatch(/^220 /);
    // A slot of the address comes free when one of its connections ends.
    held[0]?.socket.end('QUIT\r\n');
    await held[0]?.closed;
    expect(await open(port).greeting).toMatch(/^220 /);
  });

  it('allows 50 connections per address by default', async () => {
    const port = await start({});
    const peers = Array.from({ length: 50 }, () => open(port));
    for (const peer of peers) expect(await peer.greeting).toMatch(/^220 /);
    expect(await open(port).greeting).toMatch(/^421 4\.7\.0 .*too many connections from 127\.0\.0\.1$/);
  });
});

describe('idle connections while the server is full', () => {
  it('closes idle connections with the short timeout once every slot is taken, so other senders get in', async () => {
    const port = await start({ maxClients: 4, maxConnectionsPerClient: 10, busyIdleTimeoutMs: 200 });
    const idle = [open(port), open(port), open(port)];
    for (const peer of idle) expect(await peer.greeting).toMatch(/^220 /);
    // The fourth connection fills the server: from now on silence costs a slot within the short timeout.
    const filler = open(port, '127.0.0.2');
    expect(await filler.greeting).toMatch(/^220 /);
    // The first idle connection to go frees a slot, and the normal timeout is back for the rest
    // (under load the others may or may not have timed out by then): wait for one, not all.
    const firstClosed = await Promise.race(idle.map((peer) => peer.closed));
    expect(firstClosed).toMatch(/\r\n421 (4\.4\.2 )?Timeout - closing connection\r\n$/);
    expect(await open(port, '127.0.0.3').greeting).toMatch(/^220 /);
  });
});
