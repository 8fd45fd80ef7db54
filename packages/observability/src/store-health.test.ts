import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { createStoreHealth } from './store-health.ts';

function capture() {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level: 'info', name: 'store-health-test', destination });
  const lines = () => {
    logger.flush?.();
    return chunks
      .join('')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  return { logger, lines };
}

describe('createStoreHealth', () => {
  it('logs one line when the store is lost and one when it is back, whatever the number of failures', () => {
    const { logger, lines } = capture();
    let clock = 0;
    const health = createStoreHealth(logger, 'redis', { now: () => clock });
    for (let attempt = 0; attempt < 500; attempt++) {
      clock += 20;
      health.lost(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' }));
    }
    health.back();
    health.back();
    expect(lines().map((line) => [line.level, line.msg, line.store])).toEqual([
      [40, 'redis connection lost', 'redis'],
      [30, 'redis connection back', 'redis'],
    ]);
    expect(lines()[0]?.reason).toBe('connect ECONNREFUSED 127.0.0.1:6390');
    expect(lines()[1]).toMatchObject({ failures: 500, downMs: 9_980 });
  });

  it('reminds once a minute while the store stays down, and starts over after it is back', () => {
    const { logger, lines } = capture();
    let clock = 0;
    const health = createStoreHealth(logger, 'postgres', { now: () => clock });
    for (; clock <= 150_000; clock += 1_000) health.lost(new Error('Connection terminated unexpectedly'));
    health.back();
    health.lost(new Error('Connection terminated unexpectedly'));
    expect(lines().map((line) => line.msg)).toEqual([
      'postgres connection lost',
      'postgres still unavailable',
      'postgres still unavailable',
      'postgres connection back',
      'postgres connection lost',
    ]);
  });
});
