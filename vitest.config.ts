import { defineConfig } from 'vitest/config';

// Integration tests talk to the real Postgres, Redis and Chromium of this machine; each file makes
// its own database and Redis key prefix, so files may run in parallel (two at a time on 2 cores).
export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
