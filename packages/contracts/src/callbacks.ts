import { z } from 'zod';
import { ApplicationErrorCode, ApplicationStatus, ApplicationTransport } from './applications.ts';
import { CallbackUrl } from './callback-url.ts';
import { MiningErrorCode, type MiningErrorCode as MiningErrorCodeType } from './recruitment.ts';

/**
 * Recruitment's callbacks (ADR 0053): a client learns that a job post was mined, a batch finished
 * or an application ended, without polling. Each event is POSTed to a URL of the client's as a
 * Standard Webhooks message (`{type, timestamp, data}`, signed with the client's secret); `data`
 * holds ids, statuses and the paths to fetch the full result, never a candidate's data.
 */
export const callbackEventTypes = ['jobPost.mined', 'jobPost.failed', 'batch.finished', 'application.ended'] as const;
export const CallbackEventType = z.enum(callbackEventTypes);
export type CallbackEventType = z.infer<typeof CallbackEventType>;

/**
 * What a failed mining's code means and what the client does about it, in the words retrieval
 * (`message` beside `errorCode`) and `jobPost.failed` carry.
 */
export const miningErrorMessages: Record<MiningErrorCodeType, string> = {
  GenericWebsiteError:
    'The page could not be read as a job application form (the site answered with an error or an unreadable page). Mine the post again later; if it keeps failing, check the URL in a browser.',
  JobNotFound: 'The job post was not found (the site answered 404 or 410, or says it was removed). Drop the post, or send its current URL.',
  JobExpired: 'The job post is closed. Drop the post.',
  FormNotFound: 'The page has no application form. Send the URL of the page that holds the form (often an "Apply" link).',
  LoginRequired:
    'The application form is behind a sign-in the client has no account registered for. Register the account for this site, then mine again.',
  BotDetection: 'The site blocked automation (a captcha or a bot wall). Mine again later, or read the form by hand.',
  UnsupportedWebsite:
    'The site is not supported (it serves no HTML page, or its forms need a sign-in no account can be registered for). Read the form by hand.',
  NavigationTimeout: 'The page did not load in time. Mine again later.',
  UrlInvalid:
    'The job post URL cannot be fetched as given (not http(s), user name or password in it, or too many redirects). Send a plain http(s) URL of the post.',
  HostNotFound: "The URL's host name does not resolve (DNS). Check the host name's spelling, or mine again once the site is back.",
  AddressRefused:
    "The URL's host is a private, loopback or otherwise non-public address, which the service does not fetch. Send the post's public URL.",
};

const links = (shape: Record<string, z.ZodString>) =>
  z.object(shape).describe('Paths on this API (same credentials) to fetch the full result');

const JobPostMinedData = z.object({
  jobPostId: z.string(),
  batchId: z.uuid().nullable(),
  status: z.literal('completed'),
  succeededAt: z.string().describe('ISO 8601'),
  links: links({ questions: z.string(), find: z.string() }),
});
const JobPostFailedData = z.object({
  jobPostId: z.string(),
  batchId: z.uuid().nullable(),
  status: z.literal('failed'),
  errorCode: MiningErrorCode,
  message: z.string(),
  links: links({ find: z.string() }),
});
const BatchFinishedData = z.object({
  batchId: z.uuid(),
  jobsCount: z.number().int(),
  counts: z.object({
    completed: z.number().int(),
    failed: z.number().int(),
    failedByErrorCode: z.record(z.string(), z.number().int()).describe('the failed rows per mining error code'),
  }),
  finishedAt: z.string().describe('ISO 8601'),
  links: links({ status: z.string() }),
});
const ApplicationEndedData = z.object({
  applicationId: z.uuid(),
  jobPostId: z.string(),
  status: ApplicationStatus.exclude(['processing']),
  errorCode: ApplicationErrorCode.optional(),
  transport: ApplicationTransport.optional(),
  submittedAt: z.string().optional().describe('ISO 8601: when the form was submitted (success only)'),
  replaces: z
    .object({ status: z.literal('failed'), errorCode: z.literal('SubmissionOutcomeUnknown') })
    .optional()
    .describe('Present when this definite outcome replaces an earlier application.ended that said SubmissionOutcomeUnknown'),
  links: links({ application: z.string() }),
});

const event = <T extends CallbackEventType, D extends z.ZodType>(type: T, data: D) =>
  z.object({ type: z.literal(type), timestamp: z.string().describe('ISO 8601: when the outcome was committed'), data });
export const JobPostMinedEvent = event('jobPost.mined', JobPostMinedData).meta({ id: 'JobPostMinedEvent' });
export const JobPostFailedEvent = event('jobPost.failed', JobPostFailedData).meta({ id: 'JobPostFailedEvent' });
export const BatchFinishedEvent = event('batch.finished', BatchFinishedData).meta({ id: 'BatchFinishedEvent' });
export const ApplicationEndedEvent = event('application.ended', ApplicationEndedData).meta({ id: 'ApplicationEndedEvent' });

/** The `data` of each event type, by type. */
export type CallbackEventData = {
  'jobPost.mined': z.infer<typeof JobPostMinedData>;
  'jobPost.failed': z.infer<typeof JobPostFailedData>;
  'batch.finished': z.infer<typeof BatchFinishedData>;
  'application.ended': z.infer<typeof ApplicationEndedData>;
};

/** Standard Webhooks' request headers on every callback. */
export const CallbackHeaders = z.object({
  'webhook-id': z.string().describe('The message id (msg_…): the same on every retry of one event; a receiver drops a repeat by it'),
  'webhook-timestamp': z.string().describe('Unix seconds of this attempt'),
  'webhook-signature': z
    .string()
    .describe(
      'v1,<base64 HMAC-SHA256 of "id.timestamp.body">, space-separated, one per secret in force (two during a rotation\'s overlap)',
    ),
});

/** One callback job: up to a few dozen events of one client, each with the dispatch it belongs to. */
export const CallbacksDeliverJobPayload = z.object({
  clientId: z.string().min(1),
  events: z
    .array(z.object({ eventId: z.string().regex(/^\d+$/), seq: z.number().int().min(1) }))
    .min(1)
    .max(200),
});
export type CallbacksDeliverJobPayload = z.infer<typeof CallbacksDeliverJobPayload>;

// --- Operators (admin API, CLI, dashboard) ---

export const CallbackClientQuery = z.object({
  state: z.enum(['pending', 'sending', 'delivered', 'failed']).optional().describe('only the events in this state'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export const CallbackClientParams = z.object({ clientId: z.string().regex(/^cl_[a-z0-9]{20}$/, 'must be a client id (cl_…)') });
export const SetCallbackDefaultBody = z.object({
  url: CallbackUrl.nullable().describe('The default URL; null removes it (events of requests that named no URL are then not sent)'),
});

export const CallbackEventView = z.object({
  webhookId: z.string(),
  type: CallbackEventType,
  subjectId: z.string(),
  url: z.string(),
  state: z
    .enum(['pending', 'sending', 'delivered', 'failed'])
    .describe(
      'pending: waiting for its first or next attempt; sending: in flight; delivered: a 2xx answered; failed: given up after CALLBACK_GIVE_UP_AFTER_MS',
    ),
  attempts: z.number().int(),
  createdAt: z.iso.datetime(),
  nextAttemptAt: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.string().nullable(),
});
export type CallbackEventView = z.infer<typeof CallbackEventView>;

const CallbackCounts = z.object({
  waiting: z.number().int(),
  sending: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
});

export const CallbackClientView = z.object({
  clientId: z.string(),
  defaultUrl: z.string().nullable(),
  hasSecret: z.boolean(),
  secretCreatedAt: z.string().nullable(),
  previousSecretValidUntil: z.string().nullable().describe('After a rotation: until when the previous secret signs too'),
  counts: CallbackCounts,
  oldestWaitingAt: z.string().nullable(),
  recent: z.array(CallbackEventView),
});
export type CallbackClientView = z.infer<typeof CallbackClientView>;

const CallbackClientSummary = z.object({
  clientId: z.string(),
  name: z.string(),
  defaultUrl: z.string().nullable(),
  counts: CallbackCounts,
  oldestWaitingAt: z.string().nullable(),
  lastDeliveredAt: z.string().nullable(),
  lastError: z.string().nullable(),
});
export const CallbackOverview = z.object({ clients: z.array(CallbackClientSummary) });
export type CallbackOverview = z.infer<typeof CallbackOverview>;

export const CallbackSecretView = z.object({
  clientId: z.string(),
  defaultUrl: z.string().nullable(),
  webhookSecret: z
    .string()
    .optional()
    .describe('The Standard Webhooks secret (whsec_…), shown once: present only when this call created or rotated it'),
  previousSecretValidUntil: z.string().nullable(),
});
export type CallbackSecretView = z.infer<typeof CallbackSecretView>;
export const RotateCallbackSecretBody = z.object({
  overlapHours: z.number().int().min(0).max(720).default(24).describe('How long the previous secret keeps signing beside the new one'),
});
