import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { describeIssues, QueueJobsQuery, QueueJobViews, QueueNameParams, QueueView, QueueViews, validationError } from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import { batchExists, listActiveBatchIds } from '@quarry/recruitment';
import { listQueueJobs, listQueues, pauseQueue, resumeQueue, type JobQueues, type QueueAdminPorts } from '@quarry/jobs';
import { Router } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Operators' view of every BullMQ queue: the catalog's queues and each running batch's queue. */
export function queueAdminRoutes(deps: { authenticator: Authenticator; db: Queryable; queues: JobQueues }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  // The only queue family is mining.batch: its members are the batches recruitment knows.
  const ports: QueueAdminPorts = {
    queues: deps.queues,
    listFamilyQueueNames: async () => (await listActiveBatchIds(deps.db)).map((batchId) => `mining.batch.${batchId}`),
    isKnownKey: (_family, key) => batchExists(deps.db, key),
  };

  router.get('/v1/admin/queues', admin, async (_request, response) => {
    response.json(await listQueues(ports));
  });
  router.get('/v1/admin/queues/:name/jobs', admin, async (request, response) => {
    const query = QueueJobsQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await listQueueJobs(ports, String(request.params.name), query.data.state, query.data.limit));
  });
  router.post('/v1/admin/queues/:name/pause', admin, async (request, response) => {
    response.json(await pauseQueue(ports, String(request.params.name)));
  });
  router.post('/v1/admin/queues/:name/resume', admin, async (request, response) => {
    response.json(await resumeQueue(ports, String(request.params.name)));
  });
  return router;
}

export function describeQueueAdminRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Operations'];
  const params = QueueNameParams;
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/queues',
    summary: 'Every queue with job counts, pause state and connected workers',
    tags,
    security: securedBy,
    responses: { 200: { description: 'Queues', content: { 'application/json': { schema: QueueViews } } }, ...errorResponses([401, 403]) },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/queues/{name}/jobs',
    summary: 'Jobs of a queue in one state (payloads hold ids only)',
    tags,
    security: securedBy,
    request: { params, query: QueueJobsQuery },
    responses: {
      200: { description: 'Jobs', content: { 'application/json': { schema: QueueJobViews } } },
      ...errorResponses([400, 401, 403, 404]),
    },
  });
  for (const action of ['pause', 'resume'] as const) {
    registry.registerPath({
      method: 'post',
      path: `/v1/admin/queues/{name}/${action}`,
      summary: `${action === 'pause' ? 'Pause' : 'Resume'} a queue (running jobs finish)`,
      tags,
      security: securedBy,
      request: { params },
      responses: {
        200: { description: 'The queue', content: { 'application/json': { schema: QueueView } } },
        ...errorResponses([401, 403, 404]),
      },
    });
  }
}
