import { sealedColumns } from '@quarry/keyring';
import { AppError, validationError, type ApplicationErrorCode, type ApplicationStatusBody } from '@quarry/contracts';
import { z } from 'zod';
import type { ApplicationsPorts } from './applications-ports.ts';
import { findApplicationById, findNewestForCandidate, findScreenshot, type ApplicationRow } from './applications.queries.ts';
import { Confirmation } from './sealed-application.ts';

const applicationId = z.uuid();
const jobPostId = z.string().trim().min(1).max(200);
const email = z.email().max(254);

/** Where a client GETs an application's confirmation screenshot (same credentials). */
export const screenshotPath = (id: string) => `/v1/recruitment/job-posts/find/application/screenshot/?applicationId=${id}`;

function parseQuery(query: Record<string, unknown>): { applicationId: string } | { jobPostId: string; email: string } {
  const single = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
  if (query.applicationId !== undefined) {
    const parsed = applicationId.safeParse(single('applicationId'));
    if (!parsed.success) throw validationError(['applicationId: must be a UUID']);
    return { applicationId: parsed.data };
  }
  const problems: string[] = [];
  const post = jobPostId.safeParse(single('jobPostId'));
  const address = email.safeParse(single('email'));
  if (!post.success) problems.push('jobPostId: required (or give applicationId)');
  if (!address.success) problems.push('email: required with jobPostId, a valid email address');
  if (!post.success || !address.success) throw validationError(problems);
  return { jobPostId: post.data, email: address.data };
}

function render(ports: Pick<ApplicationsPorts, 'sealer'>, row: ApplicationRow): ApplicationStatusBody {
  const base = { applicationId: row.applicationId, jobPostId: row.jobPostId, ...(row.transport ? { transport: row.transport } : {}) };
  switch (row.state) {
    case 'queued':
    case 'processing':
    case 'submitting':
      return { ...base, status: 'processing' };
    case 'failed':
      return {
        ...base,
        status: 'failed',
        errorCode: (row.errorCode ?? 'ApplicationFailed') as ApplicationErrorCode,
        ...(row.message ? { message: row.message } : {}),
        ...(row.submittedAt ? { submittedAt: row.submittedAt.toISOString() } : {}),
      };
    case 'success': {
      // The confirmation is purged with the candidate's data after the retention period.
      const confirmation = row.confirmationSealed
        ? Confirmation.parse(
            JSON.parse(ports.sealer.open(sealedColumns.applicationConfirmation, row.applicationId, row.confirmationSealed)),
          )
        : null;
      return {
        ...base,
        status: 'success',
        ...(row.submittedAt ? { submittedAt: row.submittedAt.toISOString() } : {}),
        ...(confirmation
          ? { confirmation: { ...confirmation, ...(row.hasScreenshot ? { screenshot: screenshotPath(row.applicationId) } : {}) } }
          : {}),
      };
    }
  }
}

/** GET /v1/recruitment/job-posts/find/application/: another client's application is a 404 like a missing one. */
export async function findApplication(
  ports: Pick<ApplicationsPorts, 'pool' | 'sealer'>,
  clientId: string,
  query: Record<string, unknown>,
): Promise<ApplicationStatusBody> {
  const wanted = parseQuery(query);
  const row =
    'applicationId' in wanted
      ? await findApplicationById(ports.pool, clientId, wanted.applicationId)
      : await findNewestForCandidate(ports.pool, clientId, wanted.jobPostId, ports.sealer.hashEmail(wanted.email));
  if (!row)
    throw new AppError(
      'NotFound',
      'applicationId' in wanted
        ? `application ${wanted.applicationId} does not exist`
        : `no application of this candidate to jobPostId ${wanted.jobPostId}`,
    );
  return render(ports, row);
}

/** The screenshot's PNG bytes; `clientId` null for operators (any client's). */
export async function readScreenshot(
  ports: Pick<ApplicationsPorts, 'pool' | 'sealer'>,
  clientId: string | null,
  id: unknown,
): Promise<Buffer> {
  const parsed = applicationId.safeParse(id);
  if (!parsed.success) throw validationError(['applicationId: must be a UUID']);
  const sealed = await findScreenshot(ports.pool, parsed.data, clientId);
  if (!sealed) throw new AppError('NotFound', `no screenshot is kept for application ${parsed.data}`);
  return Buffer.from(ports.sealer.open(sealedColumns.applicationScreenshot, parsed.data, sealed), 'base64');
}
