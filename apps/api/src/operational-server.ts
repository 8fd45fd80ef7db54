import { once } from 'node:events';
import type { Server } from 'node:http';
import type { ConfigFor } from '@quarry/config';
import type { Pool } from '@quarry/db';
import type { Logger, Metrics } from '@quarry/observability';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import { errorHandler, notFoundHandler } from './middleware/error-handler.middleware.ts';
import { operationalRoutes, type ReadinessCheck } from './routes/operational.routes.ts';

// What every process serves, kept apart from the API's routes: a worker process loads express and
// these few modules, not the API's dependencies (about 70 MB of a worker's memory).

export function baseApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // One deployment usually sits behind one ingress hop; needed for correct client IPs in logs.
  app.set('trust proxy', 1);
  return app;
}

export type HttpRole = { port: number; stop(): Promise<void> };

/** The HTTP side of a process: listens, and at shutdown stops taking requests, letting open ones finish (at most 2 s). */
export async function serve(
  app: Express,
  config: Pick<ConfigFor<'api'>, 'port' | 'host'>,
  onStop: () => Promise<void> | void = () => {},
): Promise<HttpRole> {
  const server: Server = app.listen(config.port, config.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    // Taken since the start tried it (apps/quarry/src/port-check.ts): still named by its setting.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE') throw error;
    throw new Error(`PORT=${config.port} (on HOST=${config.host}) is in use by another process: stop it, or set PORT to a free port`, {
      cause: error,
    });
  }
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : config.port,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await onStop();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}

export function readinessCheck(db: Pool, redis: Redis): ReadinessCheck {
  const within = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref())]);
  return async () => {
    const [postgres, redisState] = await Promise.all([
      within(db.query('SELECT 1'), 2_000).then(
        () => 'ok' as const,
        (error: Error) => error.message,
      ),
      within(redis.ping(), 2_000).then(
        () => 'ok' as const,
        (error: Error) => error.message,
      ),
    ]);
    return { postgres, redis: redisState };
  };
}

/** What worker-only roles serve: health, readiness and metrics. */
export function createOperationalApp(deps: { metrics: Metrics; logger: Logger; checkReadiness: ReadinessCheck }): Express {
  const app = baseApp();
  app.use(operationalRoutes(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

/** What a process without the API serves: health, readiness and metrics. */
export function startOperationalServer(runtime: {
  config: Pick<ConfigFor<'api'>, 'port' | 'host'>;
  db: Pool;
  redis: Redis;
  metrics: Metrics;
  logger: Logger;
}): Promise<HttpRole> {
  return serve(
    createOperationalApp({ metrics: runtime.metrics, logger: runtime.logger, checkReadiness: readinessCheck(runtime.db, runtime.redis) }),
    runtime.config,
  );
}
export { createMetricsApp } from './metrics-app.ts';
