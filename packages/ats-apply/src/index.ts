export { createAtsApplier, defaultAtsApiEndpoints } from './transport-router.applier.ts';
export type { AtsApiEndpoints, AtsApplierOptions } from './transport-router.applier.ts';
export type { VendorRateLimit } from './lever.api-applier.ts';
export { bambooApiCoverage } from './bamboohr.api-applier.ts';
export { smartRecruitersApiCoverage } from './smartrecruiters.api-applier.ts';
export { leverApiCoverage } from './lever.api-applier.ts';
export { ashbyApiCoverage } from './ashby.api-applier.ts';
export { recruiteeApiCoverage } from './recruitee.api-applier.ts';
export { workableApiCoverage } from './workable.api-applier.ts';
