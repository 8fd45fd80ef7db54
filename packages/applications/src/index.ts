export { validateAnswers } from './answer-validation.ts';
export type { AnswerProblem, PlannedAnswer } from './answer-validation.ts';
export { applicationsOverview, adminScreenshotPath } from './applications-overview.ts';
export type { ApplicationsPorts, FindMinedPost, HostLimiter, RecordMining, RunPorts, Sealer } from './applications-ports.ts';
export { fitsAccept, sniffFileType } from './file-types.ts';
export { findApplication, readScreenshot, screenshotPath } from './find-application.ts';
export { purgeApplications } from './purge-applications.ts';
export { reconcileApplications } from './reconcile-applications.ts';
export { runApplication } from './run-application.ts';
export type { RunSummary } from './run-application.ts';
export { submitApplication } from './submit-application.ts';
export {
  findAtsAccount,
  findAtsCredential,
  listClientAtsCredentials,
  registerAtsCredential,
  removeAtsCredential,
} from './ats-credentials.ts';
