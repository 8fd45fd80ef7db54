import type { CallbackSealer } from '@quarry/callbacks';
import type { BatchSettings } from '@quarry/config';
import type { Pool } from '@quarry/db';
import type { Miner, BoardCredential, TenantAccount } from '@quarry/miner';

/** The queue operations the recruitment use cases need (`createMiningQueuePort` builds them from the jobs). */
export type MiningQueuePort = {
  enqueueSingle(submissionId: string): Promise<void>;
  /** Adds rows to the batch's own queue; job ids are deterministic, so a repeat adds nothing. */
  enqueueBatchRows(batchId: string, rows: Array<{ submissionId: string; rowNo: number }>, limits: BatchLimits): Promise<void>;
  requestAdmission(batchId: string): Promise<void>;
  pauseBatchQueue(batchId: string): Promise<void>;
  resumeBatchQueue(batchId: string): Promise<void>;
  /**
   * Puts back the jobs of rows whose job is missing, failed, or completed while the row is not
   * final; rows whose job is waiting, delayed or running are left alone. Returns how many.
   */
  reviveJobs(rows: StrandedRow[]): Promise<number>;
};

/** An unfinished submission: a batch row (with its batch's limits) or a single post. */
export type StrandedRow = { submissionId: string; batch: { batchId: string; rowNo: number; limits: BatchLimits } | null };

export type BatchLimits = BatchSettings['batch'];

/** The batch settings of `packages/config` (`MINING_BATCH_*`, `MINING_AUTOPAUSE_*`, `MINING_CSV_MAX_BYTES`). */
export type RecruitmentSettings = BatchSettings;

/** What intake needs for a request's `callbackUrl`: the SSRF policy deliveries follow, and the sealer of the client's secret. */
export type CallbackIntakePorts = { sealer: Pick<CallbackSealer, 'seal'>; checkUrl: (url: string) => Promise<void> };

export type RecruitmentPorts = {
  pool: Pool;
  queue: MiningQueuePort;
  settings: RecruitmentSettings;
  /** Absent where no request is taken (the mining worker): a callbackUrl is then refused. */
  callbacks?: CallbackIntakePorts;
};

export type MiningPorts = RecruitmentPorts & {
  miner: Miner;
  /**
   * The client's account on the posting's ATS tenant (Workday), opened from its sealed copy for
   * this mining only: the job carries ids alone, so the password is never in Redis or a log.
   * Absent where this process holds no key to open accounts.
   */
  findAccount?: (clientId: string, url: string) => Promise<TenantAccount | null>;
  /** The employer's key the client registered for the posting's board, opened the same way (SmartRecruiters' screening questions are served only to it). */
  findCredential?: (clientId: string, url: string) => Promise<BoardCredential | null>;
  now?: () => Date;
  /** Logs a failed mining with what the miner saw (the host, the refused address); the client is given only the code and its message. */
  logFailure?: (failure: { jobPostId: string; submissionId: string; errorCode: string; adapter: string | null; detail: string }) => void;
  /** Tells API processes a post's answer changed (they drop what they cached); never throws. */
  announceOutcome?: (clientId: string, jobPostId: string) => Promise<void>;
};
