import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { AppError, describeIssues, validationError } from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import { findBatch, listBatches } from '@quarry/recruitment';
import { listQueueJobs, queueJobStates, queueNames, resolveQueue, viewQueue, type JobQueues } from '@quarry/jobs';
import { Router } from 'express';
import { z } from 'zod';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

const JobsQuery = z.object({ state: z.enum(queueJobStates).default('failed'), limit: z.coerce.number().int().min(1).max(200).default(20) });
const QueueViewSchema = z.object({ name: z.string(), paused: z.boolean(), workers: z.number().int(), counts: z.record(z.string(), z.number()) });
const QueueJobSchema = z.object({
  id: z.string(), name: z.string(), attemptsMade: z.number().int(), failedReason: z.string().nullable(),
  enqueuedAt: z.number(), startedAt: z.number().nullable(), finishedAt: z.number().nullable(), payload: z.unknown(),
});
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Operators' view of every BullMQ queue: the catalog's queues and each running batch's queue. */
export function queueAdminRoutes(deps: { authenticator: Authenticator; db: Queryable; queues: JobQueues }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  const isKnownBatch = async (_family: string, key: string) => uuid.test(key) && (await findBatch(deps.db, key)) !== null;
  const queueOr404 = async (name: string) => {
    const queue = await resolveQueue(deps.queues, name, isKnownBatch);
    if (!queue) throw new AppError('NotFound', `no queue ${name}`);
    return queue;
  };

  router.get('/v1/admin/queues', admin, async (_request, response) => {
    const batches = await listBatches(deps.db, { limit: 200, activeOnly: true });
    const names = [...queueNames, ...batches.map((batch) => `mining.batch.${batch.batchId}`)];
    response.json(await Promise.all(names.map(async (name) => viewQueue(await queueOr404(name)))));
  });
  router.get('/v1/admin/queues/:name/jobs', admin, async (request, response) => {
    const query = JobsQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await listQueueJobs(await queueOr404(String(request.params.name)), query.data.state, query.data.limit));
  });
  router.post('/v1/admin/queues/:name/pause', admin, async (request, response) => {
    const queue = await queueOr404(String(request.params.name));
    await queue.pause();
    response.json(await viewQueue(queue));
  });
  router.post('/v1/admin/queues/:name/resume', admin, async (request, response) => {
    const queue = await queueOr404(String(request.params.name));
    await queue.resume();
    response.json(await viewQueue(queue));
  });
  return router;
}

export function describeQueueAdminRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Operations'];
  const params = z.object({ name: z.string().describe('a catalog queue (e.g. mining.single) or mining.batch.<batchId>') });
  registry.registerPath({
    method: 'get', path: '/v1/admin/queues', summary: 'Every queue with job counts, pause state and connected workers', tags, security: securedBy,
    responses: { 200: { description: 'Queues', content: { 'application/json': { schema: z.array(QueueViewSchema) } } }, ...errorResponses([401, 403]) },
  });
  registry.registerPath({
    method: 'get', path: '/v1/admin/queues/{name}/jobs', summary: 'Jobs of a queue in one state (payloads hold ids only)', tags, security: securedBy,
    request: { params, query: JobsQuery },
    responses: { 200: { description: 'Jobs', content: { 'application/json': { schema: z.array(QueueJobSchema) } } }, ...errorResponses([400, 401, 403, 404]) },
  });
  for (const action of ['pause', 'resume'] as const) {
    registry.registerPath({
      method: 'post', path: `/v1/admin/queues/{name}/${action}`, summary: `${action === 'pause' ? 'Pause' : 'Resume'} a queue (running jobs finish)`, tags, security: securedBy,
      request: { params },
      responses: { 200: { description: 'The queue', content: { 'application/json': { schema: QueueViewSchema } } }, ...errorResponses([401, 403, 404]) },
    });
  }
}
