export { extractHtmlForm } from './html-form.extractor.ts';
export { createHtmlPageMiner } from './html-page.miner.ts';
export type { JobPostToMine, Miner, MineOutcome } from './miner-port.ts';
export { categorize } from './question-categories.ts';
export { syntheticAnswers } from './synthetic-answers.ts';
export { createMiner, defaultMinerEndpoints } from './ats-router.miner.ts';
export type { CreateMinerOptions, MinerEndpoints } from './ats-router.miner.ts';
export { detectAts } from './ats-detect.ts';
export type { AtsName, AtsTarget } from './ats-detect.ts';
export { createBrowserFormMiner } from './browser/browser-form.miner.ts';
export type { BrowserMinerOptions } from './browser/browser-form.miner.ts';
export { createChromiumPool } from './browser/chromium-pool.ts';
export type { ChromiumPool } from './browser/chromium-pool.ts';
// What the applier shares with the browser miner: the page script, the snapshot, the ids.
export { locateQuestions } from './browser/form-fields.ts';
export type { LocatedQuestion, RawField } from './browser/form-fields.ts';
export { callInFrame, frameOf, minerPageScript, settle, settleAfterInput, snapshotPage } from './browser/page-snapshot.ts';
export { createHostGuard } from './browser/request-guard.ts';
export { nextButton } from './browser/wizard-steps.ts';
