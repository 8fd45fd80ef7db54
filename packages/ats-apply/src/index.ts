export { createAtsApplier, defaultAtsApiEndpoints } from './transport-router.applier.ts';
export type { AtsApiEndpoints, AtsApplierOptions } from './transport-router.applier.ts';
export type { VendorRateLimit } from './lever.api-applier.ts';
export { jazzApiCoverage } from './jazzhr.api-applier.ts';
export { breezyApiCoverage } from './breezy.api-applier.ts';
export { teamtailorApiCoverage } from './teamtailor.api-applier.ts';
