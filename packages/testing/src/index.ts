export { createTestDatabase } from './test-database.ts';
export type { TestDatabase } from './test-database.ts';
export { createTestRedis, testRedisUrl } from './test-redis.ts';
export type { TestRedis } from './test-redis.ts';
export { waitFor } from './wait-for.ts';
export { fixtureForms } from './fixture-forms.ts';
export type { FixtureFormName } from './fixture-forms.ts';
export { startFixtureWeb } from './fixture-web.ts';
export type { FixtureWeb } from './fixture-web.ts';
