/** Address helpers. Addresses are compared case-insensitively everywhere (stored lowercased). */

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

export function localPartOf(address: string): string {
  return address.slice(0, address.lastIndexOf('@'));
}

export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

export function isReceivingDomain(domains: readonly string[], address: string): boolean {
  return domains.includes(domainOf(address));
}
