export { createPool, withTransaction } from './pool.ts';
export type { Pool, PoolClient, Queryable } from './pool.ts';
export { ensureDatabase, migrateToLatest } from './migrate.ts';
