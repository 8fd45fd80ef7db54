import { z } from 'zod';
import { CallbackUrl } from './callback-url.ts';
import { HttpUrl, httpUrlMaxLength } from './http-url.ts';
import { hasNul, nulMessage } from './nul-bytes.ts';

const inputTypes = [
  'Text',
  'TextArea',
  'TextLiteral',
  'SelectOne',
  'SelectMultiple',
  'Date',
  'Boolean',
  'File',
  'ArrayOfObjects',
  'FragmentedQuestion',
] as const;
export const InputType = z.enum(inputTypes);

export const questionCategories = [
  'firstName',
  'lastName',
  'fullName',
  'email',
  'phone',
  'address',
  'city',
  'zip',
  'country',
  'linkedin',
  'website',
  'github',
  'resume',
  'coverLetter',
  'salary',
  'startDate',
  'workAuthorization',
  'sponsorship',
  'relocation',
  'gender',
  'race',
  'ethnicity',
  'veteran',
  'disability',
  'pronouns',
  'consent',
  'education',
  'experience',
  'referral',
] as const;
export const QuestionCategory = z.enum(questionCategories);

export type Question = {
  id: string;
  question: string;
  inputType: z.infer<typeof InputType>;
  label: string;
  mandatory: boolean;
  category?: z.infer<typeof QuestionCategory>;
  options?: Array<{ answer: string; conditionalQuestions: Question[] } | Question>;
  /** TextLiteral: the text's HTML. */
  value?: string;
  /** File: accepted extensions or MIME types, e.g. [".pdf"]. */
  accept?: string[];
};

export const Question: z.ZodType<Question> = z
  .lazy(
    () =>
      z.object({
        id: z.string().min(1),
        question: z.string(),
        inputType: InputType,
        label: z.string(),
        mandatory: z.boolean(),
        category: QuestionCategory.optional(),
        options: z.array(z.union([z.object({ answer: z.string(), conditionalQuestions: z.array(Question) }), Question])).optional(),
        value: z.string().optional(),
        accept: z.array(z.string()).optional(),
      }),
    // A named schema: documents (OpenAPI) refer to it, which is how its recursion is expressed.
  )
  .meta({ id: 'Question' });

export const Answer = z.object({ id: z.string(), value: z.unknown() });
export type Answer = z.infer<typeof Answer>;

/** What a miner returns for a form it got through; validated before it is stored. */
export const MinedForm = z.object({
  questions: z.array(Question),
  answers: z.array(Answer),
});
export type MinedForm = z.infer<typeof MinedForm>;

export const miningErrorCodes = [
  'GenericWebsiteError',
  'JobNotFound',
  'JobExpired',
  'FormNotFound',
  'LoginRequired',
  'BotDetection',
  'UnsupportedWebsite',
  'NavigationTimeout',
  'UrlInvalid',
  'HostNotFound',
  'AddressRefused',
] as const;
export const MiningErrorCode = z.enum(miningErrorCodes);
export type MiningErrorCode = z.infer<typeof MiningErrorCode>;

const withoutNul = (value: string) => !hasNul(value);

/** The vendor base URLs a deployment may override (`MINING_ATS_ENDPOINTS`); the miner's endpoints are exactly these. */
export const atsEndpointNames = [
  'greenhouseApi',
  'greenhouseBoards',
  'lever',
  'ashby',
  'workable',
  'smartRecruitersApi',
  'smartRecruitersJobs',
  'bamboohr',
  'recruitee',
  'teamtailor',
  'jazzhr',
  'breezy',
  'manatal',
  'leverApi',
  'ashbyApi',
  'workableApi',
  'bamboohrApi',
  'jazzhrApi',
  'breezyApi',
  'teamtailorApi',
] as const;
export type AtsEndpointName = (typeof atsEndpointNames)[number];

/** One job post, as a single mining request or a CSV row (the CSV columns are these names). */
export const JobPostInput = z.object({
  jobPostId: z.string().trim().min(1).max(200).refine(withoutNul, nulMessage),
  url: HttpUrl,
  employer: z.string().trim().min(1).max(500).refine(withoutNul, nulMessage),
  jobTitle: z.string().trim().min(1).max(500).refine(withoutNul, nulMessage),
  country: z
    .string()
    .regex(/^[a-z]{2}$/, 'must be a lowercase ISO 3166-1 alpha-2 code')
    .default('gb'),
});
export type JobPostInput = z.infer<typeof JobPostInput>;

/** Printable ASCII other than space: a string that starts and ends with one is unchanged by trim(). */
const isPlainEdge = (code: number) => code > 0x20 && code < 0x7f;
const plainText = (value: string | undefined, max: number): value is string =>
  value !== undefined &&
  value.length > 0 &&
  value.length <= max &&
  isPlainEdge(value.charCodeAt(0)) &&
  isPlainEdge(value.charCodeAt(value.length - 1)) &&
  !hasNul(value);
const countryCode = /^[a-z]{2}$/;

/**
 * The batch CSV's fast path: returns the row as JobPostInput would parse it when the row is
 * plainly valid, or null to let JobPostInput decide (and name the problem). It only ever accepts
 * rows the schema accepts unchanged (test: quick-job-post.test.ts); zod costs ~2 µs a row, a
 * quarter of a 70,000-row batch's parse (bench batch-intake).
 */
export function quickJobPostInput(row: {
  jobPostId?: string;
  url?: string;
  employer?: string;
  jobTitle?: string;
  country?: string;
}): JobPostInput | null {
  const { jobPostId, url, employer, jobTitle, country } = row;
  if (!plainText(jobPostId, 200) || !plainText(employer, 500) || !plainText(jobTitle, 500)) return null;
  // A special scheme (http, https) parses only with a host, so canParse covers hostname.length > 0.
  if (
    url === undefined ||
    url.length > httpUrlMaxLength ||
    !(url.startsWith('https://') || url.startsWith('http://')) ||
    hasNul(url) ||
    !URL.canParse(url)
  )
    return null;
  if (country !== undefined && !countryCode.test(country)) return null;
  return { jobPostId, url, employer, jobTitle, country: country ?? 'gb' };
}

export const csvColumns = ['jobPostId', 'url', 'employer', 'jobTitle'] as const;
export const optionalCsvColumns = ['country'] as const;

/** POST /v1/recruitment/job-posts/mine/: one post, and where its outcome is announced (optional). */
export const MineJobPostBody = JobPostInput.extend({ callbackUrl: CallbackUrl.optional() });

const webhookSecret = z
  .string()
  .optional()
  .describe(
    "Present only on the request that created the client's callback secret (its first callbackUrl): the Standard Webhooks secret (whsec_…) that signs every callback; shown once",
  );

export const MineJobPostResponse = z.object({ jobPostId: z.string(), status: z.literal('queued'), webhookSecret });

export const BatchFileUrlBody = z.object({ fileUrl: HttpUrl, callbackUrl: CallbackUrl.optional() });
/** The batch's callback URL as a query parameter: how a CSV body (text/csv, application/octet-stream) names it; JSON may use either. */
export const BatchCallbackQuery = z.object({ callbackUrl: CallbackUrl.optional() });

export const BatchAccepted = z.object({ batchId: z.uuid(), jobsCount: z.number().int(), webhookSecret });
export type BatchAccepted = z.infer<typeof BatchAccepted>;

const batchStates = ['created', 'processing', 'paused', 'resumed', 'finished'] as const;
export const BatchState = z.enum(batchStates);
export type BatchState = z.infer<typeof BatchState>;

export const BatchStatus = z.object({
  batchId: z.uuid(),
  createdAt: z.number().int().describe('epoch milliseconds'),
  state: BatchState,
  processedRate: z.number().min(0).max(1),
  successRate: z.number().min(0).max(1),
  jobsCount: z.number().int(),
});
export type BatchStatus = z.infer<typeof BatchStatus>;

export const BatchIdQuery = z.object({ batchId: z.uuid() });
export const JobPostIdQuery = z.object({ jobPostId: z.string().trim().min(1).max(200) });

export const MiningStatusBody = z.union([
  z.object({ status: z.enum(['queued', 'processing']) }),
  z.object({ status: z.literal('failed'), errorCode: MiningErrorCode, message: z.string().describe('what happened and what to do') }),
]);

export const CompletedMiningBody = z.object({
  jobPostId: z.string(),
  succeededAt: z.string(),
  answers: z.array(Answer),
  questions: z.array(Question),
});

/** What the three retrieval routes answer: the status while not done, else the completed result. */
export const MiningRetrievalBody = z.union([MiningStatusBody, CompletedMiningBody]);
export const JobPostIdParams = z.object({ jobPostId: z.string() });
/** A batch sent as the request body (text/csv or application/octet-stream): the CSV text. */
export const BatchCsvBody = z.string();

/** Operators' view of a batch (admin API and dashboard). */
export const BatchSummary = BatchStatus.extend({
  clientId: z.string(),
  employer: z.string().nullable(),
  processedCount: z.number().int(),
  succeededCount: z.number().int(),
  failedCount: z.number().int(),
  pausedReason: z.string().nullable(),
});
export type BatchSummary = z.infer<typeof BatchSummary>;

export const MineSubmissionJob = z.object({ submissionId: z.string().regex(/^\d+$/) });
export type MineSubmissionJob = z.infer<typeof MineSubmissionJob>;
export const AdmitBatchJob = z.object({ batchId: z.uuid().optional() });
export type AdmitBatchJob = z.infer<typeof AdmitBatchJob>;
