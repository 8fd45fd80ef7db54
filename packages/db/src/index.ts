export { createPool, withTransaction } from './pool.ts';
export type { Pool, Queryable } from './pool.ts';
export { ensureDatabase, migrateToLatest } from './migrate.ts';
export {
  findActiveClientById,
  findActiveClientBySecretHash,
  insertClient,
  listClients,
  revokeClient,
} from './clients.queries.ts';
export type { ClientRow } from './clients.queries.ts';
export { completeCanary, findCanary, insertCanary, startCanaryRun } from './canaries.queries.ts';
export type { CanaryRow } from './canaries.queries.ts';
