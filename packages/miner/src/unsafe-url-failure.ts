import type { MiningErrorCode } from '@quarry/contracts';
import type { UnsafeUrlError } from '@quarry/safe-fetch';

/**
 * The mining code of a URL the SSRF guard would not fetch: a name that does not resolve and a
 * non-public address are told apart from a malformed URL, because the client fixes each differently.
 */
export function codeOfUnsafeUrl(error: Pick<UnsafeUrlError, 'reason'>): MiningErrorCode {
  if (error.reason === 'dns') return 'HostNotFound';
  if (error.reason === 'private-address') return 'AddressRefused';
  return 'UrlInvalid';
}
