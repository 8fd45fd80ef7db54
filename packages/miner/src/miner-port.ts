import type { MinedForm, MiningErrorCode } from '@quarry/contracts';

export type JobPostToMine = { url: string; employer: string; jobTitle: string; country: string };

export type MineOutcome =
  | { ok: true; form: MinedForm; adapter: string }
  | { ok: false; errorCode: MiningErrorCode; adapter: string | null; detail: string };

/**
 * The one function mining workers call. Implementations never throw for a website's behaviour:
 * every known cause becomes an error code; a throw means our infrastructure failed and the job
 * may be retried.
 */
export type Miner = (jobPost: JobPostToMine, signal: AbortSignal) => Promise<MineOutcome>;
