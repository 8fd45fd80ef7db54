export { createAtsApplier, defaultAtsApiEndpoints } from './transport-router.applier.ts';
export type { AtsApiEndpoints, AtsApplierOptions } from './transport-router.applier.ts';
export type { VendorRateLimit } from './lever.api-applier.ts';
export { greenhouseApiCoverage } from './greenhouse.api-applier.ts';
