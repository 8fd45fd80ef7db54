import { Transform, type Readable } from 'node:stream';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import {
  AppError,
  BatchAccepted,
  BatchCallbackQuery,
  BatchCsvBody,
  BatchFileUrlBody,
  BatchIdQuery,
  BatchStatus,
  describeIssues,
  JobPostIdParams,
  JobPostIdQuery,
  MineJobPostBody,
  MineJobPostResponse,
  MiningRetrievalBody,
  validationError,
} from '@quarry/contracts';
import {
  acceptBatch,
  getBatchStatus,
  retrieveMining,
  submitJobPost,
  type RecruitmentPorts,
  type RetrievalCache,
} from '@quarry/recruitment';
import { ResponseTooLargeError, UnsafeUrlError, type SafeFetch } from '@quarry/safe-fetch';
import { Router, type Request, type Response } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

const limits = { fileUrl: 70_000, csv: 30_000 } as const;
const batchBodyTypes = ['application/json', 'text/csv', 'application/octet-stream'] as const;
/** What is read and discarded of a refused upload so its client gets the answer (beyond: closed). */
const maxDiscardBytes = 256 * 1024 * 1024;

function tooLarge(maxBytes: number): AppError {
  const message = `body: larger than the limit of ${maxBytes} bytes`;
  return new AppError('PayloadTooLarge', message, { messages: [message], limitBytes: maxBytes });
}

/** Fails the stream once more than `maxBytes` went through: bodies are never read whole. */
function capBytes(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes) callback(tooLarge(maxBytes));
      else callback(null, chunk);
    },
  });
}

/**
 * A client still uploading does not read our answer until its upload is done: read and discard
 * the rest of the body so the 400 or 413 reaches it, up to a bound past which the connection is
 * closed. The connection is not reused after a refused upload.
 */
async function drain(request: Request, response: Response): Promise<void> {
  request.unpipe();
  response.setHeader('Connection', 'close');
  let seen = 0;
  await new Promise<void>((resolve) => {
    request.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxDiscardBytes) request.destroy();
    });
    request.once('end', resolve);
    request.once('close', resolve);
    request.resume();
  });
}

function mediaType(request: Request): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The batch's callback URL: the query parameter, or (JSON) the body's field; both must agree. */
function batchCallbackUrl(request: Request, type: string): string | undefined {
  const query = BatchCallbackQuery.safeParse({ callbackUrl: request.query.callbackUrl });
  if (!query.success) throw validationError(describeIssues(query.error));
  if (type !== 'application/json') return query.data.callbackUrl;
  const field = (request.body as { callbackUrl?: unknown } | undefined)?.callbackUrl;
  if (query.data.callbackUrl !== undefined && field !== undefined && field !== query.data.callbackUrl) {
    throw validationError(['callbackUrl: given as a query parameter and in the body with different values']);
  }
  return query.data.callbackUrl;
}

async function openFileUrl(
  fetchClientUrl: SafeFetch,
  body: unknown,
  maxBytes: number,
): Promise<{ csv: Readable; callbackUrl: string | undefined }> {
  const parsed = BatchFileUrlBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  let response;
  try {
    response = await fetchClientUrl(parsed.data.fileUrl, { maxBytes, timeoutMs: 120_000 });
  } catch (error) {
    if (error instanceof UnsafeUrlError || error instanceof ResponseTooLargeError) throw validationError([`fileUrl: ${error.message}`]);
    throw validationError([`fileUrl: could not be fetched (${(error as Error).message})`]);
  }
  if (response.status !== 200) {
    response.body.resume();
    throw validationError([`fileUrl: the server answered HTTP ${response.status}`]);
  }
  return { csv: response.body, callbackUrl: parsed.data.callbackUrl };
}

/** Recruitment: mining submission, batches and the three retrieval routes (tenant-scoped). */
export function recruitmentRoutes(deps: {
  authenticator: Authenticator;
  recruitment: RecruitmentPorts;
  retrievalCache?: RetrievalCache;
  fetchClientUrl: SafeFetch;
}): Router {
  const router = Router();
  const recruitment = requireClient(deps.authenticator, { scope: 'recruitment' });
  const batchIntake = requireClient(deps.authenticator, { scope: 'recruitment', bodyTypes: batchBodyTypes });
  const retrieval = requireClient(deps.authenticator, { scope: 'recruitment', surface: 'questions' });
  const { pool } = deps.recruitment;
  const maxBytes = deps.recruitment.settings.maxCsvBytes;

  router.post('/v1/recruitment/job-posts/mine', recruitment, async (request, response) => {
    response.json(await submitJobPost(deps.recruitment, clientOf(response).clientId, request.body));
  });

  router.post('/v1/recruitment/job-posts/batch/mine', batchIntake, async (request, response) => {
    const type = mediaType(request);
    if (type !== 'application/json' && Number(request.headers['content-length'] ?? 0) > maxBytes) {
      await drain(request, response);
      throw tooLarge(maxBytes);
    }
    let csv: Readable;
    let source: { maxRows: number; source: string; callbackUrl: string | undefined };
    if (type === 'application/json') {
      const callbackUrl = batchCallbackUrl(request, type);
      const opened = await openFileUrl(deps.fetchClientUrl, request.body, maxBytes);
      csv = opened.csv;
      source = { maxRows: limits.fileUrl, source: 'application/json with fileUrl', callbackUrl: callbackUrl ?? opened.callbackUrl };
    } else if (type === 'text/csv' || type === 'application/octet-stream') {
      let callbackUrl: string | undefined;
      try {
        callbackUrl = batchCallbackUrl(request, type);
      } catch (error) {
        await drain(request, response);
        throw error;
      }
      csv = request.pipe(capBytes(maxBytes));
      request.on('error', (error) => csv.destroy(error));
      source = { maxRows: limits.csv, source: type, callbackUrl };
    } else {
      throw new AppError(
        'UnsupportedMediaType',
        `Content-Type: must be application/json (with fileUrl), text/csv or application/octet-stream, not "${type || 'none'}"`,
      );
    }
    try {
      response.json(await acceptBatch(deps.recruitment, clientOf(response).clientId, csv, source));
    } catch (error) {
      if (csv !== request.body && !request.complete) await drain(request, response);
      throw error;
    }
  });

  router.get('/v1/recruitment/job-posts/batch/status', recruitment, async (request, response) => {
    const query = BatchIdQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await getBatchStatus(pool, clientOf(response).clientId, query.data.batchId));
  });

  router.get('/questions/:jobPostId', retrieval, async (request, response) => {
    response
      .type('application/json')
      .send(await retrieveMining(pool, clientOf(response).clientId, request.params.jobPostId, 'v2', deps.retrievalCache));
  });
  router.get('/v1/recruitment/job-posts/find', retrieval, async (request, response) => {
    response
      .type('application/json')
      .send(await retrieveMining(pool, clientOf(response).clientId, request.query.jobPostId, 'v1', deps.retrievalCache));
  });
  router.get('/v2/recruitment/job-posts/find', retrieval, async (request, response) => {
    response
      .type('application/json')
      .send(await retrieveMining(pool, clientOf(response).clientId, request.query.jobPostId, 'v2', deps.retrievalCache));
  });
  return router;
}

export function describeRecruitmentRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Recruitment'];
  const retrievalResponses = {
    200: {
      description:
        'Status while queued/processing/failed, or the completed result (an older result stays readable while a re-submission runs)',
      content: { 'application/json': { schema: MiningRetrievalBody } },
    },
    ...errorResponses([400, 401, 403, 404, 500], 'questions'),
  };
  registry.registerPath({
    method: 'post',
    path: '/v1/recruitment/job-posts/mine/',
    summary: 'Mine one job post (the path also works without the trailing slash)',
    tags,
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: MineJobPostBody } } } },
    responses: {
      200: { description: 'Accepted', content: { 'application/json': { schema: MineJobPostResponse } } },
      ...errorResponses([400, 401, 403, 500]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/recruitment/job-posts/batch/mine/',
    summary: 'Submit a batch: JSON {fileUrl} (≤ 70,000 rows), or a CSV body as text/csv or application/octet-stream (≤ 30,000 rows)',
    description:
      'CSV columns jobPostId, url, employer, jobTitle (optional country). Every row is validated first; any bad row rejects the whole batch with 400 and details.messages listing every bad row as "row N: …" (data rows numbered from 1 after the header; a quote never closed is named at the row where it opens). A CSV body over the byte limit is a 413 naming the limit. ' +
      "With callbackUrl (the query parameter; JSON bodies may give it as a field instead) every row's jobPost.mined or jobPost.failed and the batch's one batch.finished are POSTed there.",
    tags,
    security: securedBy,
    request: {
      query: BatchCallbackQuery,
      body: {
        content: {
          'application/json': { schema: BatchFileUrlBody },
          'text/csv': { schema: BatchCsvBody },
          'application/octet-stream': { schema: BatchCsvBody },
        },
      },
    },
    responses: {
      200: { description: 'Accepted', content: { 'application/json': { schema: BatchAccepted } } },
      ...errorResponses([400, 401, 403, 413, 415, 500]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/recruitment/job-posts/batch/status/',
    summary: 'Progress of a batch',
    tags,
    security: securedBy,
    request: { query: BatchIdQuery },
    responses: {
      200: { description: 'Batch status', content: { 'application/json': { schema: BatchStatus } } },
      ...errorResponses([400, 401, 403, 404]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/questions/{jobPostId}',
    summary: 'Mined questions of a job post (with categories)',
    tags,
    security: securedBy,
    request: { params: JobPostIdParams },
    responses: retrievalResponses,
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/recruitment/job-posts/find/',
    summary: 'Mined questions of a job post (without categories)',
    tags,
    security: securedBy,
    request: { query: JobPostIdQuery },
    responses: retrievalResponses,
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/recruitment/job-posts/find',
    summary: 'Mined questions of a job post, with question categories',
    tags,
    security: securedBy,
    request: { query: JobPostIdQuery },
    responses: retrievalResponses,
  });
}
