import type { TenantAccount } from '@quarry/browser';
import type { MinedForm, MiningErrorCode } from '@quarry/contracts';

export type JobPostToMine = { url: string; employer: string; jobTitle: string; country: string };

export type MineOutcome =
  { ok: true; form: MinedForm; adapter: string } | { ok: false; errorCode: MiningErrorCode; adapter: string | null; detail: string };

/**
 * A candidate account the client registered on one ATS tenant (Workday's account wall): the miner
 * and the hosted-form applier sign in with it on that tenant's host only. Never logged.
 */
export type { TenantAccount };

/**
 * The employer's API key the client registered for the posting's board: some vendors serve part
 * of an application form only to it (SmartRecruiters' screening questions). Never logged.
 */
export type BoardCredential = { ats: string; board: string; key: string };

/**
 * What a mining may use beyond the post: the client's account on the posting's tenant, and the
 * employer's key for its board. Kept apart from the post, which is logged and stored, and never
 * copied into an outcome or its detail.
 */
export type MiningAccess = { account?: TenantAccount | undefined; credential?: BoardCredential | undefined };

/**
 * The one function mining workers call. Implementations never throw for a website's behaviour:
 * every known cause becomes an error code; a throw means our infrastructure failed and the job
 * may be retried.
 */
export type Miner = (jobPost: JobPostToMine, signal: AbortSignal, access?: MiningAccess) => Promise<MineOutcome>;
