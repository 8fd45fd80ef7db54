export { createTestDatabase } from './test-database.ts';
export type { TestDatabase } from './test-database.ts';
export { createTestRedis, testRedisUrl } from './test-redis.ts';
export type { TestRedis } from './test-redis.ts';
export { waitFor } from './wait-for.ts';
