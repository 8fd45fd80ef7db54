export type {
  Applier,
  ApplicationToSubmit,
  AtsAccount,
  AtsCredential,
  Confirmation,
  FileToUpload,
  ResolvedAnswer,
  SubmitHooks,
  SubmitOutcome,
} from './applier-port.ts';
export { createBrowserApplier } from './browser.applier.ts';
export type { BrowserApplierOptions } from './browser.applier.ts';
