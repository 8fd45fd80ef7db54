import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createTestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from './redis.ts';

/**
 * A network cut and its heal, seen from the client: a TCP relay to the test's Redis that, once
 * cut, drops what either side sends on the connections it carries, and after the heal keeps those
 * connections silent (as TCP's retransmission backoff does) while new connections get through.
 */
const testRedis = createTestRedis('redis-silent');
let relay: Server;
const carried: { client: Socket; upstream: Socket; frozen: boolean }[] = [];
let relayUrl = '';

beforeAll(async () => {
  const target = new URL(testRedis.url);
  relay = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    const pair = { client, upstream, frozen: false };
    carried.push(pair);
    client.on('data', (chunk: Buffer) => void (!pair.frozen && upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => void (!pair.frozen && client.write(chunk)));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  relayUrl = `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const { client, upstream } of carried) {
    client.destroy();
    upstream.destroy();
  }
  relay.close();
  await testRedis.cleanup();
});

describe('a worker connection', () => {
  it('is made again when it stops answering, and the command that had no answer gets one on the new connection', async () => {
    const redis = createRedis(relayUrl, { silentLimitMs: 1_000 });
    try {
      await redis.set(`${testRedis.prefix}:k`, 'before');
      // The cut and its heal: the connection in use stays silent; a new one would get through.
      for (const pair of carried) pair.frozen = true;
      const started = Date.now();
      expect(await redis.get(`${testRedis.prefix}:k`)).toBe('before');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      redis.disconnect();
    }
  });
});
