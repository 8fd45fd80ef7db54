import { z } from 'zod';
import { CallbackUrl } from './callback-url.ts';
import { HttpUrl } from './http-url.ts';

/**
 * Why an application failed. The first eight are the published interface's codes;
 * `SubmissionOutcomeUnknown` is ours: the form may have been submitted (the job was interrupted
 * after it recorded that it was about to submit, and the outcome could not be proven), so it is
 * never retried and never reported as success; the client checks by hand. `ApiKeyRejected` is
 * ours too: the vendor refused the employer's key the client registered (nothing was recorded).
 */
export const applicationErrorCodes = [
  'AlreadyApplied',
  'JobExpired',
  'JobNotFound',
  'MandatoryQuestionsNotAnswered',
  'FileTypeNotSupported',
  'FileFailedToUpload',
  'ApplicantDetailsInvalid',
  'ApplicationFailed',
  'BotDetection',
  'SubmissionOutcomeUnknown',
  'ApiKeyRejected',
] as const;
export const ApplicationErrorCode = z.enum(applicationErrorCodes);
export type ApplicationErrorCode = z.infer<typeof ApplicationErrorCode>;

/** A file the service fetches (through the SSRF guard) when the application runs. */
export const FileAnswer = z.object({
  type: z.literal('File'),
  url: HttpUrl,
  filename: z.string().trim().min(1).max(255),
  /** Sent with the GET of `url` (e.g. a bearer token of the client's storage); kept sealed, never logged. */
  headers: z.record(z.string().min(1).max(200), z.string().max(8192)).optional(),
});
export type FileAnswer = z.infer<typeof FileAnswer>;

export const Candidate = z.object({
  email: z.email().max(254),
  firstName: z.string().trim().min(1).max(255),
  lastName: z.string().trim().min(1).max(255),
  phone: z
    .string()
    .trim()
    .min(3)
    .max(40)
    .regex(/^[+()0-9 .\-/]+$/, 'must contain only digits, spaces and + ( ) . - /')
    .optional(),
});
export type Candidate = z.infer<typeof Candidate>;

/** POST /v1/recruitment/job-posts/apply/: the envelope; answers are checked against the mined questions. */
export const ApplyBody = z.object({
  jobPostId: z.string().trim().min(1).max(200),
  candidate: Candidate,
  files: z.object({ cv: FileAnswer, coverLetter: FileAnswer.optional() }),
  answers: z
    .array(z.object({ id: z.string().min(1).max(500), value: z.unknown() }))
    .max(2_000)
    .default([]),
  /** The apply page, when the post was not mined for this client (it is then mined first). */
  url: HttpUrl.optional(),
  employer: z.string().trim().min(1).max(500).optional(),
  jobTitle: z.string().trim().min(1).max(500).optional(),
  /** Where `application.ended` is POSTed (ADR 0053); without it, the client's default callback URL, if any. */
  callbackUrl: CallbackUrl.optional(),
});
export type ApplyBody = z.infer<typeof ApplyBody>;

export const ApplyResponse = z.object({
  applicationId: z.uuid(),
  status: z.literal('processing'),
  webhookSecret: z
    .string()
    .optional()
    .describe(
      "Present only on the request that created the client's callback secret (its first callbackUrl): the Standard Webhooks secret (whsec_…); shown once",
    ),
});
export type ApplyResponse = z.infer<typeof ApplyResponse>;

/** GET /v1/recruitment/job-posts/find/application/: by id, or the newest for a post and a candidate email. */
export const FindApplicationQuery = z.union([
  z.object({ applicationId: z.uuid() }),
  z.object({ jobPostId: z.string().trim().min(1).max(200), email: z.email().max(254) }),
]);
export type FindApplicationQuery = z.infer<typeof FindApplicationQuery>;

export const ApplicationStatus = z.enum(['processing', 'success', 'failed']);
export type ApplicationStatus = z.infer<typeof ApplicationStatus>;

/**
 * Which way an application went to the employer: the vendor's API (with the employer's key the
 * client registered, or a vendor's keyless endpoint) or the vendor's hosted form in a browser;
 * `handedOverBecause` says why an application for a vendor API went to the hosted form instead.
 */
export const ApplicationTransport = z.object({
  kind: z.enum(['vendorApi', 'hostedForm']),
  vendor: z.string().optional().describe('the ATS whose API sent it (greenhouse, lever, …)'),
  handedOverBecause: z.string().optional().describe("why the vendor's API could not carry every answer, so the hosted form sent it"),
});
export type ApplicationTransport = z.infer<typeof ApplicationTransport>;

export const ApplicationStatusBody = z.object({
  applicationId: z.uuid(),
  jobPostId: z.string(),
  status: ApplicationStatus,
  transport: ApplicationTransport.optional().describe('which transport sent (or tried to send) it, once the application has ended'),
  errorCode: ApplicationErrorCode.optional(),
  message: z.string().optional(),
  submittedAt: z.string().optional().describe('ISO 8601: when the form was submitted (success only)'),
  confirmation: z
    .object({
      reference: z.string().optional(),
      text: z.string(),
      screenshot: z.string().optional().describe('URL of the confirmation screenshot on this service; GET it with the same credentials'),
    })
    .optional(),
});
export type ApplicationStatusBody = z.infer<typeof ApplicationStatusBody>;

export const ApplyJobPayload = z.object({ applicationId: z.uuid() });
export type ApplyJobPayload = z.infer<typeof ApplyJobPayload>;
export const PurgeApplicationsJobPayload = z.object({});
export type PurgeApplicationsJobPayload = z.infer<typeof PurgeApplicationsJobPayload>;
export const ReconcileApplicationsJobPayload = z.object({});
export type ReconcileApplicationsJobPayload = z.infer<typeof ReconcileApplicationsJobPayload>;

/** Operators' view: counts by status and error code, and the newest failures. */
export const ApplicationsOverview = z.object({
  counts: z.array(z.object({ status: z.string(), errorCode: z.string().nullable(), count: z.number().int() })),
  recentFailures: z.array(
    z.object({
      applicationId: z.uuid(),
      clientId: z.string(),
      jobPostId: z.string(),
      host: z.string().nullable(),
      errorCode: z.string().nullable(),
      message: z.string().nullable(),
      finishedAt: z.string().nullable(),
      screenshot: z.string().nullable().describe('Admin URL of the screenshot, when one was kept'),
    }),
  ),
});
export type ApplicationsOverview = z.infer<typeof ApplicationsOverview>;

/** How the OpenAPI document describes the find query: either form, so each field on its own is optional. */
export const FindApplicationQueryDocument = z.object({
  applicationId: z.uuid().optional(),
  jobPostId: z.string().optional(),
  email: z.email().optional(),
});
/** `Idempotency-Key` on the apply request: a repeat returns the first application. */
export const IdempotencyKeyHeader = z.object({ 'idempotency-key': z.string().max(200).optional() });
export const ApplicationIdQuery = z.object({ applicationId: z.uuid() });
export const ApplicationIdParams = z.object({ applicationId: z.uuid() });
/** A PNG response body (the confirmation screenshot). */
export const PngImage = z.string().meta({ format: 'binary' });
