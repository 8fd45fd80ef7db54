import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { describeApplicationsRoutes } from './routes/applications.routes.ts';
import { describeAtsCredentialsRoutes } from './routes/ats-credentials.routes.ts';
import { describeBatchAdminRoutes } from './routes/batch-admin.routes.ts';
import { describeBookingsRoutes } from './routes/bookings.routes.ts';
import { describeBookingsAdminRoutes } from './routes/bookings-admin.routes.ts';
import { describeClientsAdminRoutes } from './routes/clients-admin.routes.ts';
import { describeCallbacksAdminRoutes } from './routes/callbacks-admin.routes.ts';
import { describeClientAdminRoutes } from './routes/client-admin.routes.ts';
import { describeCanaryRoutes } from './routes/canary.routes.ts';
import { describeForwardingRoutes } from './routes/forwarding.routes.ts';
import { describeMailAdminRoutes } from './routes/mail-admin.routes.ts';
import { describeMiningActivityRoutes } from './routes/mining-activity.routes.ts';
import { describeQueueAdminRoutes } from './routes/queue-admin.routes.ts';
import { describeRecruitmentRoutes } from './routes/recruitment.routes.ts';
import { describeWhoamiRoutes } from './routes/whoami.routes.ts';
import { describeHotelsRoutes } from './routes/hotels.routes.ts';
import { describePullRatesRoutes } from './routes/pull-rates.routes.ts';
import { describePushSubscriptionsRoutes } from './routes/push-subscriptions.routes.ts';
import { describeVaultRoutes } from './routes/vault.routes.ts';

/** Each route module describes its own paths; this assembles them into one OpenAPI 3.1 document. */
export function buildOpenApiDocument(): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'basic', {
    type: 'http',
    scheme: 'basic',
    description: 'base64("<secret>:"): the client secret as user name and an empty password',
  });
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "HS256 signed with the client's JWT secret (sub = clientId, exp required), or RS256/ES256 via the configured JWKS",
  });
  describeWhoamiRoutes(registry);
  describeCanaryRoutes(registry);
  describeForwardingRoutes(registry);
  describeRecruitmentRoutes(registry);
  describeApplicationsRoutes(registry);
  describeAtsCredentialsRoutes(registry);
  describeBatchAdminRoutes(registry);
  describeMiningActivityRoutes(registry);
  describeQueueAdminRoutes(registry);
  describeMailAdminRoutes(registry);
  describeHotelsRoutes(registry);
  describePullRatesRoutes(registry);
  describePushSubscriptionsRoutes(registry);
  describeVaultRoutes(registry);
  describeBookingsRoutes(registry);
  describeBookingsAdminRoutes(registry);
  describeClientsAdminRoutes(registry);
  describeCallbacksAdminRoutes(registry);
  describeClientAdminRoutes(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Quarry',
      version: '1.0.0',
      description:
        'Job-post form mining, email forwarding, hotel rates feed and hotel bookings. Every resource is scoped to the authenticated client.',
    },
    servers: [{ url: '/' }],
  });
}

export function openApiRoutes(): Router {
  const document = buildOpenApiDocument();
  const router = Router();
  router.get('/openapi.json', (_request, response) => {
    response.json(document);
  });
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'Quarry API' }));
  return router;
}
