export { checkAddress, isAddressAllowed, parseAllowList } from './address-policy.ts';
export type { AddressVerdict, AllowList } from './address-policy.ts';
export { FetchTimeoutError, ResponseTooLargeError, UnsafeUrlError } from './errors.ts';
export type { UnsafeUrlReason } from './errors.ts';
export { createAddressGuard } from './pinned-agent.ts';
export type { AddressGuard, Lookup, LookupAddress } from './pinned-agent.ts';
export { createSafeFetch } from './safe-fetch.ts';
export type { SafeFetch, SafeFetchInit, SafeFetchOptions, SafePoster, SafeResponse } from './safe-fetch.ts';
