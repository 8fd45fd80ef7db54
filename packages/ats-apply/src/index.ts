export { createAtsApplier, defaultAtsApiEndpoints } from './transport-router.applier.ts';
export type { AtsApiEndpoints, AtsApplierOptions } from './transport-router.applier.ts';
export type { VendorRateLimit } from './lever.api-applier.ts';
export { recruiteeApiCoverage } from './recruitee.api-applier.ts';
export { workableApiCoverage } from './workable.api-applier.ts';
