import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { applicationsOverview, findApplication, readScreenshot, submitApplication, type ApplicationsPorts } from '@quarry/applications';
import type { Authenticator } from '@quarry/auth';
import {
  ApplicationIdParams,
  ApplicationIdQuery,
  ApplicationsOverview,
  ApplicationStatusBody,
  ApplyBody,
  ApplyResponse,
  FindApplicationQueryDocument,
  IdempotencyKeyHeader,
  PngImage,
} from '@quarry/contracts';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Applications: submit, find, the confirmation screenshot (tenant-scoped), and the operators' overview. */
export function applicationsRoutes(deps: { authenticator: Authenticator; applications: ApplicationsPorts }): Router {
  const router = Router();
  // The recruitment surface's {error, message} bodies.
  const recruitment = requireClient(deps.authenticator, { scope: 'recruitment', surface: 'questions' });
  const admin = requireClient(deps.authenticator, { scope: 'admin' });

  router.post('/v1/recruitment/job-posts/apply', recruitment, async (request, response) => {
    response.json(await submitApplication(deps.applications, clientOf(response).clientId, request.body, request.header('idempotency-key')));
  });
  router.get('/v1/recruitment/job-posts/find/application', recruitment, async (request, response) => {
    response.json(await findApplication(deps.applications, clientOf(response).clientId, request.query as Record<string, unknown>));
  });
  router.get('/v1/recruitment/job-posts/find/application/screenshot', recruitment, async (request, response) => {
    const png = await readScreenshot(deps.applications, clientOf(response).clientId, request.query.applicationId);
    response.set('cache-control', 'private, no-store').type('image/png').send(png);
  });

  router.get('/v1/admin/applications', admin, async (_request, response) => {
    response.json(await applicationsOverview(deps.applications.pool));
  });
  router.get('/v1/admin/applications/:applicationId/screenshot', admin, async (request, response) => {
    const png = await readScreenshot(deps.applications, null, request.params.applicationId);
    response.set('cache-control', 'private, no-store').type('image/png').send(png);
  });
  return router;
}

export function describeApplicationsRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Applications'];
  registry.registerPath({
    method: 'post',
    path: '/v1/recruitment/job-posts/apply/',
    summary: 'Apply to a job post on behalf of a candidate (the path also works without the trailing slash)',
    description:
      'Answers are checked against the questions mined for jobPostId (every problem named by question id in a 400). A post not mined yet needs url: ' +
      'it is mined first and the answers are checked then (problems end the application failed). Questions whose category is firstName, lastName, ' +
      'fullName, email or phone are answered from candidate, resume and coverLetter from files, unless answers has them. An Idempotency-Key header ' +
      'already used by this client returns the first application. Each application is submitted at most once and never retried.',
    tags,
    security: securedBy,
    request: {
      headers: IdempotencyKeyHeader,
      body: { content: { 'application/json': { schema: ApplyBody } } },
    },
    responses: {
      200: { description: 'Accepted', content: { 'application/json': { schema: ApplyResponse } } },
      ...errorResponses([400, 401, 403, 500], 'questions'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/recruitment/job-posts/find/application/',
    summary: 'Find an application: by applicationId, or the newest for jobPostId and the candidate email',
    tags,
    security: securedBy,
    request: { query: FindApplicationQueryDocument },
    responses: {
      200: { description: 'The application', content: { 'application/json': { schema: ApplicationStatusBody } } },
      ...errorResponses([400, 401, 403, 404, 500], 'questions'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/recruitment/job-posts/find/application/screenshot/',
    summary: "The confirmation page's screenshot of a successful application (PNG), while the candidate's data is kept",
    tags,
    security: securedBy,
    request: { query: ApplicationIdQuery },
    responses: {
      200: { description: 'PNG', content: { 'image/png': { schema: PngImage } } },
      ...errorResponses([400, 401, 403, 404, 500], 'questions'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/applications',
    summary: 'Operators: applications by status and error code, and the newest failures with links to their screenshots',
    tags: ['Admin'],
    security: securedBy,
    responses: {
      200: { description: 'Overview', content: { 'application/json': { schema: ApplicationsOverview } } },
      ...errorResponses([401, 403, 500]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/applications/{applicationId}/screenshot',
    summary: "Operators: an application's screenshot (PNG)",
    tags: ['Admin'],
    security: securedBy,
    request: { params: ApplicationIdParams },
    responses: {
      200: { description: 'PNG', content: { 'image/png': { schema: PngImage } } },
      ...errorResponses([400, 401, 403, 404, 500]),
    },
  });
}
