export type UnsafeUrlReason = 'scheme' | 'credentials' | 'private-address' | 'dns' | 'too-many-redirects' | 'redirect-scheme';

/**
 * Messages name only the host and the reason: the full URL may carry tokens in its path or query, and
 * header values (Authorization, cookies, Location) must never reach logs through an error.
 */
export class UnsafeUrlError extends Error {
  override readonly name = 'UnsafeUrlError';
  readonly reason: UnsafeUrlReason;
  readonly host: string;
  /** The refused address, when the refusal is about one; `range` is ipaddr.js's name for it. */
  readonly address: string | undefined;
  readonly range: string | undefined;

  constructor(reason: UnsafeUrlReason, host: string, detail: string, extra: { address?: string; range?: string; cause?: unknown } = {}) {
    super(`Refused to fetch from host "${host}" (${reason}): ${detail}`, extra.cause === undefined ? {} : { cause: extra.cause });
    this.reason = reason;
    this.host = host;
    this.address = extra.address;
    this.range = extra.range;
  }
}

export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  readonly host: string;
  readonly maxBytes: number;

  constructor(host: string, maxBytes: number) {
    super(`Response from host "${host}" exceeds the ${maxBytes}-byte limit`);
    this.host = host;
    this.maxBytes = maxBytes;
  }
}

export class FetchTimeoutError extends Error {
  override readonly name = 'FetchTimeoutError';
  readonly host: string;
  readonly timeoutMs: number;

  constructor(host: string, timeoutMs: number) {
    super(`Fetch from host "${host}" did not complete within ${timeoutMs} ms`);
    this.host = host;
    this.timeoutMs = timeoutMs;
  }
}
