import type { ApplicationsOverview } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { countByStatus, recentFailures } from './applications.queries.ts';

/** Where an operator GETs a failed application's screenshot (admin credentials or the dashboard's session). */
export const adminScreenshotPath = (applicationId: string) => `/v1/admin/applications/${applicationId}/screenshot`;

/** Operators: applications by status and error code, and the newest failures with their screenshots. */
export async function applicationsOverview(db: Queryable, limit = 25): Promise<ApplicationsOverview> {
  const [counts, failures] = await Promise.all([countByStatus(db), recentFailures(db, limit)]);
  return {
    counts,
    recentFailures: failures.map((row) => ({
      applicationId: row.application_id,
      clientId: row.client_id,
      jobPostId: row.job_post_id,
      host: row.host,
      errorCode: row.error_code,
      message: row.message,
      finishedAt: row.finished_at?.toISOString() ?? null,
      screenshot: row.has_screenshot ? adminScreenshotPath(row.application_id) : null,
    })),
  };
}
