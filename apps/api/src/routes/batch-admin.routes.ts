import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import {
  BatchAccepted,
  BatchDetail,
  BatchIdParams,
  BatchJobPostViews,
  BatchListQuery,
  BatchRowsQuery,
  BatchSummaries,
  BatchSummary,
  describeIssues,
  PauseBatchBody,
  validationError,
} from '@quarry/contracts';
import {
  getBatchDetail,
  listBatchRows,
  listBatchSummaries,
  pauseBatchRun,
  resubmitFailedRows,
  resumeBatchRun,
  type RecruitmentPorts,
} from '@quarry/recruitment';
import { Router } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Operators' batch controls (admin scope: the deployment's operators see every client's batches). */
export function batchAdminRoutes(deps: { authenticator: Authenticator; recruitment: RecruitmentPorts }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  router.get('/v1/admin/batches', admin, async (request, response) => {
    const query = BatchListQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await listBatchSummaries(deps.recruitment.pool, { limit: query.data.limit, activeOnly: query.data.active === 'true' }));
  });
  router.get('/v1/admin/batches/:batchId', admin, async (request, response) => {
    response.json(await getBatchDetail(deps.recruitment.pool, String(request.params.batchId)));
  });
  router.get('/v1/admin/batches/:batchId/job-posts', admin, async (request, response) => {
    const query = BatchRowsQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await listBatchRows(deps.recruitment.pool, String(request.params.batchId), query.data.filter, query.data.limit));
  });
  router.post('/v1/admin/batches/:batchId/resubmit-failed', admin, async (request, response) => {
    response.json(await resubmitFailedRows(deps.recruitment, String(request.params.batchId)));
  });
  router.post('/v1/admin/batches/:batchId/pause', admin, async (request, response) => {
    const body = PauseBatchBody.safeParse(request.body ?? {});
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
  const params = BatchIdParams;
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/batches',
    summary: 'Batches of every client, newest first',
    tags,
    security: securedBy,
    request: { query: BatchListQuery },
    responses: {
      200: { description: 'Batches', content: { 'application/json': { schema: BatchSummaries } } },
      ...errorResponses([400, 401, 403]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/batches/{batchId}',
    summary: 'A batch with its error-code breakdown',
    tags,
    security: securedBy,
    request: { params },
    responses: {
      200: { description: 'Batch', content: { 'application/json': { schema: BatchDetail } } },
      ...errorResponses([401, 403, 404]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/batches/{batchId}/job-posts',
    summary: 'Failed or slowest job posts of a batch',
    tags,
    security: securedBy,
    request: { params, query: BatchRowsQuery },
    responses: {
      200: { description: 'Rows', content: { 'application/json': { schema: BatchJobPostViews } } },
      ...errorResponses([400, 401, 403, 404]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/admin/batches/{batchId}/resubmit-failed',
    summary: 'Re-submit the failed job posts as a new batch of the same client',
    tags,
    security: securedBy,
    request: { params },
    responses: {
      200: { description: 'The new batch', content: { 'application/json': { schema: BatchAccepted } } },
      ...errorResponses([401, 403, 404, 409]),
    },
  });
  for (const action of ['pause', 'resume'] as const) {
    registry.registerPath({
      method: 'post',
      path: `/v1/admin/batches/{batchId}/${action}`,
      tags,
      security: securedBy,
      summary: action === 'pause' ? 'Pause: running rows finish, nothing new starts' : 'Resume a paused batch',
      request: { params, ...(action === 'pause' ? { body: { content: { 'application/json': { schema: PauseBatchBody } } } } : {}) },
      responses: {
        200: { description: 'The batch', content: { 'application/json': { schema: BatchSummary } } },
        ...errorResponses([401, 403, 404, 409]),
      },
    });
  }
}
