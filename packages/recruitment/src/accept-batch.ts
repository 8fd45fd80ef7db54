import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, csvColumns, JobPostInput, optionalCsvColumns, quickJobPostInput, type BatchAccepted } from '@quarry/contracts';
import { ensureCallbackSecret, vetCallbackUrl } from '@quarry/callbacks';
import { withTransaction } from '@quarry/db';
import { insertBatch, openSubmissionCopy, setBatchJobsCount } from './batches.queries.ts';
import { CsvError, parse, type Options } from 'csv-parse';
import { isStoreOutage } from '@quarry/jobs';
import type { RecruitmentPorts } from './recruitment-ports.ts';
import { callbackPortsFor } from './submit-job-post.ts';

const knownColumns = new Set<string>([...csvColumns, ...optionalCsvColumns]);

class RejectedBatch extends Error {}

/** Every problem, in row order; the message counts them (the list itself can be long). */
function rejectionOf(problems: Array<{ rowNo: number; message: string }>): AppError {
  const messages = problems.sort((a, b) => a.rowNo - b.rowNo).map((problem) => problem.message);
  const rows = new Set(problems.map((problem) => problem.rowNo).filter((rowNo) => rowNo > 0)).size;
  const summary = rows > 1 ? `${rows} rows are invalid: ${messages[0]}; …` : messages.join('; ');
  return new AppError('RequestParametersValidationError', summary, { messages });
}

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

/** A record of the CSV and its ordinal among every record, skipped (malformed) ones included. */
type NumberedRecord = { ordinal: number; cells: string[] };

/**
 * Streams a CSV into a new batch: every row is validated while it is COPYed into Postgres inside
 * one transaction. Any bad row rolls the whole batch back and the answer lists every bad row
 * (data rows numbered from 1 after the header, malformed quoting included: a row whose quote is
 * never closed is named where it starts); nothing is enqueued. Memory holds only the jobPostIds
 * seen so far (for duplicates) and the problems found, whatever the file size. With `callbackUrl`
 * (checked against the SSRF policy before the body is read) every row's outcome and the batch's end
 * are POSTed there; the client's first one creates its callback secret in the batch's transaction.
 */
export async function acceptBatch(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue' | 'settings' | 'callbacks'>,
  clientId: string,
  csv: Readable,
  limits: { maxRows: number; source: string; callbackUrl?: string | undefined },
): Promise<BatchAccepted> {
  const batchId = randomUUID();
  const callbacks = limits.callbackUrl ? callbackPortsFor(ports) : null;
  if (callbacks && limits.callbackUrl) await vetCallbackUrl(callbacks.checkUrl, limits.callbackUrl);
  let webhookSecret: string | undefined;
  // Problems in the order of their rows: a malformed record is reported by the parser before the
  // records it already emitted are validated here, so each problem carries its row to sort by.
  const problems: Array<{ rowNo: number; message: string }> = [];
  const complain = (rowNo: number, message: string) => void problems.push({ rowNo, message });

  let jobsCount = 0;
  try {
    await withTransaction(ports.pool, async (client) => {
      await insertBatch(client, { batchId, clientId, ...ports.settings.batch, callbackUrl: limits.callbackUrl ?? null });
      if (callbacks) webhookSecret = await ensureCallbackSecret(client, callbacks.sealer, clientId);
      const copy = openSubmissionCopy(client, { clientId, batchId });
      // Both callbacks run in the parser's order, so the ordinal counts every record, including
      // the ones skipped for broken quoting: the numbers match the rows the client sees.
      let ordinal = 0;
      const options: Options<NumberedRecord, string[]> = {
        bom: true,
        relax_column_count: true,
        skip_empty_lines: true,
        max_record_size: 64 * 1024,
        skip_records_with_error: true,
        on_record: (cells) => ({ ordinal: ++ordinal, cells }),
        on_skip: (error) => {
          ordinal += 1;
          if (ordinal === 1) {
            complain(0, `header: not valid CSV: ${error?.message ?? 'unreadable'}`);
            throw new RejectedBatch();
          }
          complain(ordinal - 1, `row ${ordinal - 1}: not valid CSV: ${error?.message ?? 'unreadable'}`);
          return undefined;
        },
      };
      // csv-parse types `on_record` only on the overload for named columns; the records are arrays here.
      const parser = csv.pipe(parse(options as unknown as Options));
      csv.on('error', (error) => parser.destroy(error));
      let header: string[] | null = null;
      let column = { jobPostId: -1, url: -1, employer: -1, jobTitle: -1, country: -1 };
      let rowNo = 0;
      const firstRowOf = new Map<string, number>();
      const employers = new Set<string>();
      try {
        for await (const records of inBatches<NumberedRecord>(parser)) {
          for (const { ordinal: recordNo, cells: record } of records) {
            if (!header) {
              header = record.map((name) => name.trim());
              const missing = csvColumns.filter((column) => !header?.includes(column));
              const unknown = header.filter((column) => !knownColumns.has(column));
              // Rows cannot be read against a wrong header: it is the only problem then (the
              // parser may already have listed broken quoting further on).
              if (missing.length > 0 || unknown.length > 0) problems.length = 0;
              if (missing.length > 0) complain(0, `header: missing column(s) ${missing.join(', ')} (expected ${csvColumns.join(', ')})`);
              if (unknown.length > 0)
                complain(0, `header: unknown column(s) ${unknown.join(', ')} (allowed: ${[...knownColumns].join(', ')})`);
              if (missing.length > 0 || unknown.length > 0) throw new RejectedBatch();
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
            rowNo = recordNo - 1;
            if (rowNo > limits.maxRows) {
              complain(rowNo, `more than ${limits.maxRows} job posts: the limit for ${limits.source}`);
              throw new RejectedBatch();
            }
            if (record.length !== header.length) {
              complain(rowNo, `row ${rowNo}: ${record.length} fields, the header has ${header.length}`);
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
                for (const issue of parsed.error.issues) complain(rowNo, `row ${rowNo}: ${issue.path.join('.')}: ${issue.message}`);
                // An invalid row still claims its id: a later row with the same id is a duplicate too.
                const id = cells.jobPostId?.trim();
                if (id && !firstRowOf.has(id)) firstRowOf.set(id, rowNo);
                continue;
              }
              row = parsed.data;
            }
            const earlier = firstRowOf.get(row.jobPostId);
            if (earlier !== undefined) {
              complain(rowNo, `row ${rowNo}: jobPostId "${row.jobPostId.slice(0, 200)}" duplicates row ${earlier}`);
              continue;
            }
            firstRowOf.set(row.jobPostId, rowNo);
            if (employers.size < 2) employers.add(row.employer);
            if (problems.length === 0) {
              const sending = copy.write({ rowNo, ...row });
              if (sending) await sending;
            }
          }
        }
      } catch (error) {
        await copy.abort();
        if (error instanceof RejectedBatch || error instanceof AppError) throw error;
        if (error instanceof CsvError) {
          complain(ordinal, `row ${Math.max(1, ordinal)}: not valid CSV: ${(error as Error).message}`);
          throw new RejectedBatch();
        }
        throw error;
      }
      // Rows skipped for broken quoting after the last good record leave `rowNo` behind.
      rowNo = Math.max(rowNo, ordinal - 1);
      if (!header && problems.length === 0) complain(0, 'the body is empty: expected a header row with jobPostId, url, employer, jobTitle');
      else if (rowNo === 0 && problems.length === 0) complain(0, 'no job posts after the header');
      if (problems.length > 0) {
        await copy.abort();
        throw new RejectedBatch();
      }
      await copy.finish();
      jobsCount = rowNo;
      // One employer per batch is recommended; record it when that is what the batch is.
      await setBatchJobsCount(client, batchId, jobsCount, employers.size === 1 ? ([...employers][0] ?? null) : null);
    });
  } catch (error) {
    if (error instanceof RejectedBatch) throw rejectionOf(problems);
    throw error;
  }
  try {
    await ports.queue.requestAdmission(batchId);
  } catch (error) {
    // The batch is committed: with Redis away, the mining workers' periodic admission sweep
    // starts it once Redis is back. Accepted, rather than held open for the outage or refused.
    if (!isStoreOutage(error)) throw error;
  }
  return { batchId, jobsCount, ...(webhookSecret ? { webhookSecret } : {}) };
}
