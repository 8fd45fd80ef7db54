export type { Applier, ApplicationToSubmit, Confirmation, FileToUpload, ResolvedAnswer, SubmitHooks, SubmitOutcome } from './applier-port.ts';
