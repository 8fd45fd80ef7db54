import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isAddressAllowed, parseAllowList } from '@quarry/safe-fetch';

/**
 * The SSRF rule for the browser: every request a page makes (documents, frames, scripts, XHR)
 * goes to a host whose every address is public, unless the allow-list names it. Answers are
 * cached per host for the page's life.
 */
export function createHostGuard(allowPrivate: string[]): (url: string) => Promise<boolean> {
  const allowList = parseAllowList(allowPrivate);
  const verdicts = new Map<string, Promise<boolean>>();
  const judge = async (hostname: string): Promise<boolean> => {
    const bare = hostname.replace(/^\[|\]$/g, '');
    if (isIP(bare)) return isAddressAllowed(bare, allowList, bare);
    try {
      const addresses = await lookup(bare, { all: true });
      return addresses.length > 0 && addresses.every((entry) => isAddressAllowed(entry.address, allowList, bare));
    } catch {
      return false;
    }
  };
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
