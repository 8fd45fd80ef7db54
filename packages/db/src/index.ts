export { createClient, createPool, withTransaction } from './pool.ts';
export type { Pool, PoolClient, PoolEvents, Queryable } from './pool.ts';
export { ensureDatabase, migrateToLatest } from './migrate.ts';
