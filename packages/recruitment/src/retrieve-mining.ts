import { AppError, describeIssues, JobPostIdQuery, MiningErrorCode, miningErrorMessages } from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import { findRetrieval } from './submissions.queries.ts';
import type { RetrievalCache, RetrievalShape } from './retrieval-cache.ts';

/**
 * What retrieval answers, as JSON text. The newest submission decides: while it is queued or
 * processing, an older completed result stays readable; once it failed, the failure is reported.
 */
export async function retrieveMining(
  db: Queryable,
  clientId: string,
  jobPostId: unknown,
  shape: RetrievalShape,
  cache?: RetrievalCache,
): Promise<string> {
  const parsed = JobPostIdQuery.shape.jobPostId.safeParse(jobPostId);
  if (!parsed.success) throw new AppError('RequestParametersValidationError', describeIssues(parsed.error, 'jobPostId').join('; '));
  const cached = cache?.get(clientId, parsed.data, shape);
  if (cached !== undefined) return cached;
  const reservation = cache?.reservation() ?? null;
  const row = await findRetrieval(db, clientId, parsed.data);
  if (!row) throw new AppError('NotFound', `jobPostId ${parsed.data} does not exist`);
  const stored = shape === 'v1' ? row.bodyV1 : row.body;
  switch (row.state) {
    case 'completed':
      if (stored) {
        // Only completed answers are kept: they change only when an outcome is recorded (announced).
        if (reservation !== null) cache?.keep(reservation, clientId, parsed.data, shape, stored);
        return stored;
      }
      break;
    case 'failed': {
      const errorCode = row.errorCode ?? 'GenericWebsiteError';
      const known = MiningErrorCode.safeParse(errorCode);
      return JSON.stringify({
        status: 'failed',
        errorCode,
        message: miningErrorMessages[known.success ? known.data : 'GenericWebsiteError'],
      });
    }
    case 'processing':
      return stored ?? '{"status":"processing"}';
    case 'queued':
    case 'admitted':
      return stored ?? '{"status":"queued"}';
  }
  throw new Error(`submission of ${parsed.data} completed without a stored result`);
}
