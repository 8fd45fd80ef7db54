export { extractHtmlForm } from './html-form.extractor.ts';
export { createHtmlPageMiner } from './html-page.miner.ts';
export type { JobPostToMine, Miner, MineOutcome } from './miner-port.ts';
export { categorize } from './question-categories.ts';
export { syntheticAnswers } from './synthetic-answers.ts';
