import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, csvColumns, JobPostInput, optionalCsvColumns, quickJobPostInput, validationError, type BatchAccepted } from '@quarry/contracts';
import { insertBatch, openSubmissionCopy, setBatchJobsCount, withTransaction } from '@quarry/db';
import { isStoreOutage } from '@quarry/jobs';
import { CsvError, parse } from 'csv-parse';
import type { RecruitmentPorts } from './recruitment-ports.ts';

const maxMessages = 50;
const knownColumns = new Set<string>([...csvColumns, ...optionalCsvColumns]);

class RejectedBatch extends Error {}

/**
 * The records of an object-mode stream, as arrays of whatever it had buffered. `for await` over
 * the stream itself costs a promise per record, 70,000 per batch (bench batch-intake).
 */
async function* inBatches<T>(stream: Readable): AsyncGenerator<T[]> {
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  stream.on('readable', notify);
  stream.once('end', () => {
    ended = true;
    notify();
  });
  stream.once('error', (error) => {
    failure = error;
    notify();
  });
  try {
    for (;;) {
      if (failure) throw failure;
      const batch: T[] = [];
      for (let record = stream.read() as T | null; record !== null; record = stream.read() as T | null) batch.push(record);
      if (batch.length > 0) yield batch;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.off('readable', notify);
    if (!ended) stream.destroy();
  }
}

/**
 * Streams a CSV into a new batch: every row is validated while it is COPYed into Postgres inside
 * one transaction. Any bad row rolls the whole batch back and the answer lists the rows (numbered
 * from 1 after the header); nothing is enqueued. Memory holds only the jobPostIds seen so far
 * (for duplicates), whatever the file size.
 */
export async function acceptBatch(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue' | 'settings'>,
  clientId: string,
  csv: Readable,
  limits: { maxRows: number; source: string },
): Promise<BatchAccepted> {
  const batchId = randomUUID();
  const messages: string[] = [];
  const complain = (message: string) => {
    if (messages.length < maxMessages) messages.push(message);
    else if (messages.length === maxMessages) messages.push('… more problems not listed');
  };

  let jobsCount = 0;
  try {
    await withTransaction(ports.pool, async (client) => {
      await insertBatch(client, { batchId, clientId, ...ports.settings.batch });
      const copy = openSubmissionCopy(client, { clientId, batchId });
      const parser = csv.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 64 * 1024 }));
      csv.on('error', (error) => parser.destroy(error));
      let header: string[] | null = null;
      let column = { jobPostId: -1, url: -1, employer: -1, jobTitle: -1, country: -1 };
      let rowNo = 0;
      const firstRowOf = new Map<string, number>();
      const employers = new Set<string>();
      try {
        for await (const records of inBatches<string[]>(parser)) {
          for (const record of records) {
            if (!header) {
              header = record.map((name) => name.trim());
              const missing = csvColumns.filter((column) => !header?.includes(column));
              const unknown = header.filter((column) => !knownColumns.has(column));
              if (missing.length > 0) complain(`header: missing column(s) ${missing.join(', ')} (expected ${csvColumns.join(', ')})`);
              if (unknown.length > 0) complain(`header: unknown column(s) ${unknown.join(', ')} (allowed: ${[...knownColumns].join(', ')})`);
              if (messages.length > 0) throw new RejectedBatch();
              const found = header;
              column = {
                jobPostId: found.indexOf('jobPostId'),
                url: found.indexOf('url'),
                employer: found.indexOf('employer'),
                jobTitle: found.indexOf('jobTitle'),
                country: found.indexOf('country'),
              };
              continue;
            }
            rowNo += 1;
            if (rowNo > limits.maxRows) {
              complain(`more than ${limits.maxRows} job posts: the limit for ${limits.source}`);
              throw new RejectedBatch();
            }
            if (record.length !== header.length) {
              complain(`row ${rowNo}: ${record.length} fields, the header has ${header.length}`);
              continue;
            }
            // A literal object, not Object.fromEntries: this runs 70,000 times per batch (bench batch-intake).
            const cells = {
              jobPostId: record[column.jobPostId],
              url: record[column.url],
              employer: record[column.employer],
              jobTitle: record[column.jobTitle],
              // An empty country cell means the default, as an absent column does.
              country: column.country >= 0 && record[column.country] !== '' ? record[column.country] : undefined,
            };
            let row = quickJobPostInput(cells);
            if (!row) {
              const parsed = JobPostInput.safeParse(cells);
              if (!parsed.success) {
                for (const issue of parsed.error.issues) complain(`row ${rowNo}: ${issue.path.join('.')}: ${issue.message}`);
                continue;
              }
              row = parsed.data;
            }
            const earlier = firstRowOf.get(row.jobPostId);
            if (earlier !== undefined) {
              complain(`row ${rowNo}: jobPostId "${row.jobPostId.slice(0, 200)}" duplicates row ${earlier}`);
              continue;
            }
            firstRowOf.set(row.jobPostId, rowNo);
            if (employers.size < 2) employers.add(row.employer);
            if (messages.length === 0) {
              const sending = copy.write({ rowNo, ...row });
              if (sending) await sending;
            }
          }
        }
      } catch (error) {
        await copy.abort();
        if (error instanceof RejectedBatch || error instanceof AppError) throw error;
        if (error instanceof CsvError) {
          complain(`not valid CSV: ${(error as Error).message}`);
          throw new RejectedBatch();
        }
        throw error;
      }
      if (!header) complain('the body is empty: expected a header row with jobPostId, url, employer, jobTitle');
      else if (rowNo === 0 && messages.length === 0) complain('no job posts after the header');
      if (messages.length > 0) {
        await copy.abort();
        throw new RejectedBatch();
      }
      await copy.finish();
      jobsCount = rowNo;
      // One employer per batch is recommended; record it when that is what the batch is.
      await setBatchJobsCount(client, batchId, jobsCount, employers.size === 1 ? ([...employers][0] ?? null) : null);
    });
  } catch (error) {
    if (error instanceof RejectedBatch) throw validationError(messages);
    throw error;
  }
  try {
    await ports.queue.requestAdmission(batchId);
  } catch (error) {
    // The batch is committed: with Redis away, the mining workers' periodic admission sweep
    // starts it once Redis is back. Accepted, rather than held open for the outage or refused.
    if (!isStoreOutage(error)) throw error;
  }
  return { batchId, jobsCount };
}
