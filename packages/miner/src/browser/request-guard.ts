import { createAddressGuard, type Lookup } from '@quarry/safe-fetch';

/**
 * The SSRF rule for the browser: every request a page makes (documents, frames, scripts, XHR)
 * goes to a host whose every address is public, unless the allow-list names it. Answers are
 * cached per host for the page's life. `lookup` resolves names (the system's resolver by default).
 */
export function createHostGuard(allowPrivate: string[], lookup?: Lookup): (url: string) => Promise<boolean> {
  const guard = lookup ? createAddressGuard(allowPrivate, lookup) : createAddressGuard(allowPrivate);
  const verdicts = new Map<string, Promise<boolean>>();
  const judge = (hostname: string): Promise<boolean> => guard.vet(hostname).then(() => true, () => false);
  return async (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol === 'data:' || parsed.protocol === 'blob:' || parsed.protocol === 'about:') return true;
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
    let verdict = verdicts.get(parsed.hostname);
    if (!verdict) {
      verdict = judge(parsed.hostname);
      verdicts.set(parsed.hostname, verdict);
    }
    return verdict;
  };
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
