import type { ApplicationsPorts } from '@quarry/applications';
import type { BookingsPorts } from '@quarry/bookings';
import type { Authenticator, SessionCodec } from '@quarry/auth';
import { dashboardRoutes } from './dashboard/dashboard.routes.ts';
import type { OidcSettings } from '@quarry/config';
import { listActiveBatchIds } from '@quarry/recruitment';
import type { Queryable } from '@quarry/db';
import type { ColumnSealer } from '@quarry/keyring';
import type { JobQueues } from '@quarry/jobs';
import type { RecruitmentPorts, RetrievalCache } from '@quarry/recruitment';
import type { SafeFetch } from '@quarry/safe-fetch';
import type { Logger, Metrics } from '@quarry/observability';
import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from './middleware/error-handler.middleware.ts';
import { httpMetrics } from './middleware/http-metrics.middleware.ts';
import { traceRequests } from './middleware/request-tracing.middleware.ts';
import { openApiRoutes } from './openapi.ts';
import { applicationsRoutes } from './routes/applications.routes.ts';
import { atsCredentialsRoutes } from './routes/ats-credentials.routes.ts';
import { batchAdminRoutes } from './routes/batch-admin.routes.ts';
import { bookingsRoutes } from './routes/bookings.routes.ts';
import { bookingsAdminRoutes } from './routes/bookings-admin.routes.ts';
import { clientsAdminRoutes } from './routes/clients-admin.routes.ts';
import { callbacksAdminRoutes } from './routes/callbacks-admin.routes.ts';
import { clientAdminRoutes } from './routes/client-admin.routes.ts';
import { canaryRoutes } from './routes/canary.routes.ts';
import { forwardingRoutes } from './routes/forwarding.routes.ts';
import { baseApp } from './operational-server.ts';
import { operationalRoutes, type ReadinessCheck } from './routes/operational.routes.ts';
import { mailAdminRoutes } from './routes/mail-admin.routes.ts';
import { miningActivityRoutes } from './routes/mining-activity.routes.ts';
import { queueAdminRoutes } from './routes/queue-admin.routes.ts';
import { recruitmentRoutes } from './routes/recruitment.routes.ts';
import { whoamiRoutes } from './routes/whoami.routes.ts';
import { hotelsRoutes } from './routes/hotels.routes.ts';
import { pullRatesRoutes } from './routes/pull-rates.routes.ts';
import { pushSubscriptionsRoutes } from './routes/push-subscriptions.routes.ts';
import type { CardTransportPolicy, PullPorts, SubscriptionPorts } from '@quarry/rates';
import type { CardVaultService } from '@quarry/vault';
import { vaultRoutes } from './routes/vault.routes.ts';

export type ApiDeps = {
  db: Queryable;
  queues: JobQueues;
  authenticator: Authenticator;
  metrics: Metrics;
  logger: Logger;
  checkReadiness: ReadinessCheck;
  recruitment: RecruitmentPorts;
  /** Completed retrieval answers kept in this process (see createRetrievalCache); optional. */
  retrievalCache?: RetrievalCache;
  /** The SSRF-guarded fetch for every client-supplied URL (batch fileUrl, …). */
  fetchClientUrl: SafeFetch;
  /** Dashboard sessions; the same codec lets the admin API accept the dashboard's cookie. */
  sessions: SessionCodec;
  dashboardOidc?: OidcSettings | undefined;
  /** Whether spans are exported; without, the request-tracing middleware is not mounted at all. */
  tracing?: boolean;
  /** Domains this deployment receives mail for (`MAIL_DOMAINS`); binding recipients must be in one. */
  mailDomains?: readonly string[];
  /** Seals the outlook-account pool (the deployment's keyring); without it those endpoints answer 503. */
  accountSealer?: ColumnSealer;
  /** Applications: submit and find (candidate data sealed with the keyring). Without it, those routes are not mounted. */
  applications?: ApplicationsPorts;
  /** Hotel bookings (guests and card tokens sealed with the keyring). Without it, those routes are not mounted. */
  bookings?: BookingsPorts;
  /** Hotel rates feed: pull answers and push subscriptions. Without it, hotel routes are not mounted. */
  hotels?: { pull: PullPorts; push: SubscriptionPorts; cardTransport?: CardTransportPolicy };
  /** The card vault (VAULT_KEY); without it, POST /vault/* answer 503 VaultNotConfigured. */
  vault?: Pick<CardVaultService, 'issueOtp' | 'storePan'>;
};

/** The API gateway: every public and admin endpoint, plus the operational routes. */
export function createApiApp(deps: ApiDeps): Express {
  const app = baseApp();
  app.use(operationalRoutes(deps));
  if (deps.tracing) app.use(traceRequests);
  app.use(httpMetrics(deps.metrics));
  // Not strict: a body of `null` or `[]` parses, so the answer can say it must be an object
  // (requireClient's input checks) instead of calling it invalid JSON.
  app.use(express.json({ limit: '1mb', strict: false }));
  app.use(openApiRoutes());
  app.use(
    dashboardRoutes({
      authenticator: deps.authenticator,
      sessions: deps.sessions,
      queues: deps.queues,
      activeBatchIds: () => listActiveBatchIds(deps.db),
      oidc: deps.dashboardOidc,
    }),
  );
  app.use(whoamiRoutes(deps));
  app.use(canaryRoutes(deps));
  app.use(forwardingRoutes(deps));
  app.use(recruitmentRoutes(deps));
  if (deps.applications) {
    app.use(applicationsRoutes({ authenticator: deps.authenticator, applications: deps.applications }));
    app.use(atsCredentialsRoutes({ authenticator: deps.authenticator, applications: deps.applications }));
  }
  if (deps.bookings) app.use(bookingsRoutes({ authenticator: deps.authenticator, bookings: deps.bookings }));
  app.use(bookingsAdminRoutes({ authenticator: deps.authenticator, pool: deps.db }));
  app.use(clientsAdminRoutes(deps));
  app.use(batchAdminRoutes(deps));
  app.use(clientAdminRoutes(deps));
  if (deps.recruitment.callbacks)
    app.use(
      callbacksAdminRoutes({
        authenticator: deps.authenticator,
        callbacks: { pool: deps.recruitment.pool, ...deps.recruitment.callbacks },
      }),
    );
  app.use(miningActivityRoutes(deps));
  app.use(queueAdminRoutes(deps));
  app.use(mailAdminRoutes(deps));
  if (deps.hotels) {
    app.use(
      hotelsRoutes({
        authenticator: deps.authenticator,
        db: deps.db,
        hotels: {
          enqueuePush: deps.hotels.push.enqueuePush,
          ...(deps.hotels.cardTransport ? { cardTransport: deps.hotels.cardTransport } : {}),
        },
      }),
    );
    app.use(pullRatesRoutes({ authenticator: deps.authenticator, pull: deps.hotels.pull }));
    app.use(pushSubscriptionsRoutes({ authenticator: deps.authenticator, push: deps.hotels.push }));
  }
  app.use(vaultRoutes({ authenticator: deps.authenticator, vault: deps.vault }));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
