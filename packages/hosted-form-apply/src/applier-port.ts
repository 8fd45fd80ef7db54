import type { ApplicationErrorCode, ApplicationTransport, Question } from '@quarry/contracts';
import type { TenantAccount } from '@quarry/miner';

/** A file answer, already fetched through the SSRF guard, size-capped and type-checked. */
export type FileToUpload = { type: 'File'; filename: string; contentType: string; bytes: Buffer };

/**
 * One answer per question id, resolved before the engine runs: candidate details and `files.cv` /
 * `files.coverLetter` already placed on the questions they answer, File answers replaced by their
 * bytes. Values keep the interface's shapes otherwise (string, string[], boolean, ISO date string,
 * ArrayOfObjects as an array of `{id, value}[]` instances, FragmentedQuestion parts by their own ids).
 */
export type ResolvedAnswer = { id: string; value: unknown };

/**
 * The employer's key for the posting's ATS board, registered by the client: with it the
 * application goes through the vendor's API instead of its hosted form. Never logged.
 */
export type AtsCredential = { ats: string; board: string; key: string };

/**
 * A candidate account the client registered on one ATS tenant (Workday's sign-in wall): the
 * hosted form signs in with it, on that tenant's host only, as the miner does. Never logged.
 */
export type AtsAccount = TenantAccount;

export type ApplicationToSubmit = {
  /** The apply page: the job post's URL as mined. */
  url: string;
  /** The questions as mined for this post (ids are the miner's, which name the page's fields). */
  questions: Question[];
  answers: ResolvedAnswer[];
  candidate: { email: string; firstName: string; lastName: string; phone?: string };
  /** Present when the client registered a key for this posting's ATS board. */
  credential?: AtsCredential;
  /** Present when the client registered an account on the posting's ATS tenant (Workday). */
  account?: AtsAccount;
};

export type Confirmation = { reference?: string; text: string };

export type SubmitOutcome =
  /** The page proved the submission: a confirmation page, text or redirect. */
  (
    | { status: 'success'; confirmation: Confirmation; screenshot?: Buffer }
    /** The page refused or could not be used; `submitted` says whether the final click happened. */
    | { status: 'failed'; errorCode: ApplicationErrorCode; message: string; submitted: boolean; screenshot?: Buffer }
    /** The final click happened and nothing proved what followed: never reported as success. */
    | { status: 'unknown'; message: string; screenshot?: Buffer }
  ) & {
    /** Which transport sent it (set by the router that chose it; absent when only one engine runs). */
    transport?: ApplicationTransport;
  };

export type SubmitHooks = {
  /**
   * Called once, right before the irreversible step (the final submit click or request). The
   * caller records the intent durably here; when it throws, the engine must not submit and
   * rethrows.
   */
  beforeSubmit(): Promise<void>;
};

/**
 * Fills and submits one application. Implementations never throw for a website's behaviour:
 * every known cause becomes an outcome; a throw before `beforeSubmit` ran means our
 * infrastructure failed and nothing was sent.
 */
export type Applier = (application: ApplicationToSubmit, hooks: SubmitHooks, signal: AbortSignal) => Promise<SubmitOutcome>;
