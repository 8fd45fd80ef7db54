import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { BatchSummary, describeIssues, validationError } from '@quarry/contracts';
import { getBatchDetail, listBatchRows, listBatchSummaries, pauseBatchRun, resubmitFailedRows, resumeBatchRun, type RecruitmentPorts } from '@quarry/recruitment';
import { Router } from 'express';
import { z } from 'zod';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  active: z.enum(['true', 'false']).default('false'),
});
const RowsQuery = z.object({ filter: z.enum(['failed', 'slowest']).default('failed'), limit: z.coerce.number().int().min(1).max(500).default(20) });
const BatchJobPost = z.object({
  jobPostId: z.string(), rowNo: z.number().int(), url: z.string(), state: z.string(),
  errorCode: z.string().nullable(), adapter: z.string().nullable(), durationMs: z.number().int().nullable(),
});
const PauseBody = z.object({ reason: z.string().trim().min(1).max(500).default('paused by an operator') });

/** Operators' batch controls (admin scope: the deployment's operators see every client's batches). */
export function batchAdminRoutes(deps: { authenticator: Authenticator; recruitment: RecruitmentPorts }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  router.get('/v1/admin/batches', admin, async (request, response) => {
    const query = ListQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await listBatchSummaries(deps.recruitment.pool, { limit: query.data.limit, activeOnly: query.data.active === 'true' }));
  });
  router.get('/v1/admin/batches/:batchId', admin, async (request, response) => {
    response.json(await getBatchDetail(deps.recruitment.pool, String(request.params.batchId)));
  });
  router.get('/v1/admin/batches/:batchId/job-posts', admin, async (request, response) => {
    const query = RowsQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await listBatchRows(deps.recruitment.pool, String(request.params.batchId), query.data.filter, query.data.limit));
  });
  router.post('/v1/admin/batches/:batchId/resubmit-failed', admin, async (request, response) => {
    response.json(await resubmitFailedRows(deps.recruitment, String(request.params.batchId)));
  });
  router.post('/v1/admin/batches/:batchId/pause', admin, async (request, response) => {
    const body = PauseBody.safeParse(request.body ?? {});
    if (!body.success) throw validationError(describeIssues(body.error));
    response.json(await pauseBatchRun(deps.recruitment, String(request.params.batchId), body.data.reason));
  });
  router.post('/v1/admin/batches/:batchId/resume', admin, async (request, response) => {
    response.json(await resumeBatchRun(deps.recruitment, String(request.params.batchId)));
  });
  return router;
}

export function describeBatchAdminRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Operations'];
  const params = z.object({ batchId: z.uuid() });
  registry.registerPath({
    method: 'get', path: '/v1/admin/batches', summary: 'Batches of every client, newest first', tags, security: securedBy,
    request: { query: ListQuery },
    responses: { 200: { description: 'Batches', content: { 'application/json': { schema: z.array(BatchSummary) } } }, ...errorResponses([400, 401, 403]) },
  });
  registry.registerPath({
    method: 'get', path: '/v1/admin/batches/{batchId}', summary: 'A batch with its error-code breakdown', tags, security: securedBy,
    request: { params },
    responses: {
      200: { description: 'Batch', content: { 'application/json': { schema: BatchSummary.extend({ errorCodes: z.array(z.object({ errorCode: z.string(), count: z.number() })) }) } } },
      ...errorResponses([401, 403, 404]),
    },
  });
  registry.registerPath({
    method: 'get', path: '/v1/admin/batches/{batchId}/job-posts', summary: 'Failed or slowest job posts of a batch', tags, security: securedBy,
    request: { params, query: RowsQuery },
    responses: { 200: { description: 'Rows', content: { 'application/json': { schema: z.array(BatchJobPost) } } }, ...errorResponses([400, 401, 403, 404]) },
  });
  registry.registerPath({
    method: 'post', path: '/v1/admin/batches/{batchId}/resubmit-failed', summary: 'Re-submit the failed job posts as a new batch of the same client', tags, security: securedBy,
    request: { params },
    responses: {
      200: { description: 'The new batch', content: { 'application/json': { schema: z.object({ batchId: z.uuid(), jobsCount: z.number().int() }) } } },
      ...errorResponses([401, 403, 404, 409]),
    },
  });
  for (const action of ['pause', 'resume'] as const) {
    registry.registerPath({
      method: 'post', path: `/v1/admin/batches/{batchId}/${action}`, tags, security: securedBy,
      summary: action === 'pause' ? 'Pause: running rows finish, nothing new starts' : 'Resume a paused batch',
      request: { params, ...(action === 'pause' ? { body: { content: { 'application/json': { schema: PauseBody } } } } : {}) },
      responses: { 200: { description: 'The batch', content: { 'application/json': { schema: BatchSummary } } }, ...errorResponses([401, 403, 404, 409]) },
    });
  }
}
