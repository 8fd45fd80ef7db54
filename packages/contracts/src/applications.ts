import { z } from 'zod';

/**
 * Why an application failed. The first eight are the published interface's codes;
 * `SubmissionOutcomeUnknown` is ours: the form may have been submitted (the job was interrupted
 * after it recorded that it was about to submit, and the outcome could not be proven), so it is
 * never retried and never reported as success; the client checks by hand.
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
] as const;
export const ApplicationErrorCode = z.enum(applicationErrorCodes);
export type ApplicationErrorCode = z.infer<typeof ApplicationErrorCode>;
