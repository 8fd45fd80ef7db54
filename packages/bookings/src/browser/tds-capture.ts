import type { TdsChallenge } from '@quarry/contracts';
import type { BrowserContext } from 'playwright-core';

/** A 3-D Secure 2 browser challenge as the page was about to post it to the issuer's ACS. */
export type CapturedChallenge = {
  version: string;
  acsUrl: string;
  creq: string;
  threeDSSessionData?: string;
  windowSize: TdsChallenge['windowSize'];
};

const windowSizes = new Set(['01', '02', '03', '04', '05']);

/** The EMV CReq is base64url JSON; its window size and version are read when it says them. */
function readCreq(creq: string): { windowSize: TdsChallenge['windowSize']; version: string } {
  try {
    const decoded = JSON.parse(Buffer.from(creq, 'base64url').toString('utf8')) as {
      challengeWindowSize?: unknown;
      messageVersion?: unknown;
    };
    const windowSize =
      typeof decoded.challengeWindowSize === 'string' && windowSizes.has(decoded.challengeWindowSize)
        ? (decoded.challengeWindowSize as TdsChallenge['windowSize'])
        : '05';
    return { windowSize, version: typeof decoded.messageVersion === 'string' ? decoded.messageVersion : '2.2.0' };
  } catch {
    return { windowSize: '05', version: '2.2.0' };
  }
}

/**
 * Watches every request of the context for the browser challenge: a form POST carrying `creq` (to
 * the ACS, in a frame or the page). That request never leaves: the headless page gets an empty
 * document instead, so the one-time challenge is left for the card holder, in their own browser.
 * Registered after the request guard, it sees requests first and hands the others back to it.
 */
export async function captureChallenge(context: BrowserContext): Promise<{ next: Promise<CapturedChallenge> }> {
  const { promise, resolve } = Promise.withResolvers<CapturedChallenge>();
  await context.route('**/*', async (route) => {
    const request = route.request();
    const body = request.method() === 'POST' ? request.postData() : null;
    const form = body && /(^|&)creq=/.test(body) ? new URLSearchParams(body) : null;
    const creq = form?.get('creq');
    if (!form || !creq) return route.fallback();
    const threeDSSessionData = form.get('threeDSSessionData');
    resolve({ acsUrl: request.url(), creq, ...(threeDSSessionData ? { threeDSSessionData } : {}), ...readCreq(creq) });
    return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><html><body></body></html>' });
  });
  return { next: promise };
}
