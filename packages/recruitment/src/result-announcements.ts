import type { Logger } from '@quarry/observability';
import type { RetrievalCache } from './retrieval-cache.ts';
import type { Redis } from 'ioredis';

const channelOf = (prefix: string) => `${prefix}:mining-outcomes`;

/** The mining side: after an outcome is committed, API processes are told to drop their copy. */
export function createOutcomeAnnouncer(redis: Redis, prefix: string, logger: Logger) {
  return async (clientId: string, jobPostId: string): Promise<void> => {
    try {
      await redis.publish(channelOf(prefix), JSON.stringify([clientId, jobPostId]));
    } catch (error) {
      // The outcome is committed; an API copy then lives until its TTL (RETRIEVAL_CACHE_TTL_MS).
      logger.warn({ err: error, jobPostId }, 'could not announce a mining outcome');
    }
  };
}

/**
 * The API side: a subscriber connection of its own. The cache is trusted only while subscribed;
 * any disconnection suspends it (announcements may be lost meanwhile) and a new subscription
 * starts it empty.
 */
export async function followOutcomes(redis: Redis, prefix: string, cache: RetrievalCache, logger: Logger): Promise<{ stop: () => void }> {
  const subscriber = redis.duplicate();
  subscriber.on('error', (error) => logger.warn({ err: error }, 'mining outcome subscriber error'));
  subscriber.on('close', () => cache.suspend());
  subscriber.on('message', (_channel: string, message: string) => {
    try {
      const [clientId, jobPostId] = JSON.parse(message) as [string, string];
      cache.invalidate(clientId, jobPostId);
    } catch {
      // Not ours to parse: drop everything rather than keep what might be stale.
      cache.resume();
    }
  });
  // After a reconnect: trusted again only once the subscription is confirmed, so an announcement
  // published before it is active cannot be missed by a cache that believes it is current.
  subscriber.on('ready', () => {
    subscriber.subscribe(channelOf(prefix)).then(
      () => cache.resume(),
      () => cache.suspend(),
    );
  });
  await subscriber.subscribe(channelOf(prefix));
  cache.resume();
  return { stop: () => subscriber.disconnect() };
}
