import { MinedForm, type Question } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { findMinedForm as findMinedFormRow } from './submissions.queries.ts';

export type MinedPost = { url: string; employer: string; jobTitle: string; country: string; questions: Question[] };

/** A post's mined questions and page, for another domain (applications) to check answers against; null when never mined. */
export async function findMinedPost(db: Queryable, clientId: string, jobPostId: string): Promise<MinedPost | null> {
  const row = await findMinedFormRow(db, clientId, jobPostId);
  if (!row) return null;
  const form = MinedForm.pick({ questions: true }).parse(JSON.parse(row.body));
  return { url: row.url, employer: row.employer, jobTitle: row.jobTitle, country: row.country, questions: form.questions };
}
