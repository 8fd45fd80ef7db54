export { createClient, createPool, StatementTimedOut, withTransaction, withTransactionWithin } from './pool.ts';
export type { Pool, PoolClient, PoolEvents, Queryable } from './pool.ts';
export { ensureDatabase, migrateToLatest } from './migrate.ts';
export { listenOnChannel } from './listen.ts';
export type { ChannelListener } from './listen.ts';
export { createAnnouncedCache } from './announced-cache.ts';
export type { AnnouncedCache, CacheEntries } from './announced-cache.ts';
