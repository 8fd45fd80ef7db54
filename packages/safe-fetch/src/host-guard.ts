import { UnsafeUrlError } from './errors.ts';
import { createAddressGuard, type Lookup } from './pinned-agent.ts';

/**
 * The SSRF rule for a browser's requests, the policy `createSafeFetch` applies to its own: every
 * request a page makes (documents, frames, scripts, XHR) goes to a host whose every address is
 * public, unless the allow-list names it. Answers are cached per host for the page's life.
 * `lookup` resolves names (the system's resolver by default).
 */
export type HostGuard = ((url: string) => Promise<boolean>) & {
  /** Why the posting's own host is refused (a name that does not resolve, a private address), or null when it is not. */
  refusalOf: (url: URL) => Promise<UnsafeUrlError | null>;
};

export function createHostGuard(allowPrivate: string[], lookup?: Lookup): HostGuard {
  const guard = lookup ? createAddressGuard(allowPrivate, lookup) : createAddressGuard(allowPrivate);
  const verdicts = new Map<string, Promise<UnsafeUrlError | null>>();
  const refusal = (error: unknown): UnsafeUrlError =>
    error instanceof UnsafeUrlError ? error : new UnsafeUrlError('dns', 'unknown', error instanceof Error ? error.message : String(error));
  const judgeHost = (hostname: string): Promise<UnsafeUrlError | null> => {
    let verdict = verdicts.get(hostname);
    if (!verdict) {
      verdict = guard.vet(hostname).then(() => null, refusal);
      verdicts.set(hostname, verdict);
    }
    return verdict;
  };
  const allowed = async (url: string): Promise<boolean> => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol === 'data:' || parsed.protocol === 'blob:' || parsed.protocol === 'about:') return true;
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
    return (await judgeHost(parsed.hostname)) === null;
  };
  return Object.assign(allowed, { refusalOf: (url: URL) => judgeHost(url.hostname) });
}

/** The URL a browser may open: absolute http(s), or null for anything else. */
export function httpUrlOf(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
