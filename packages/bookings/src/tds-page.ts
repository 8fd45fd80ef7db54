import { randomBytes } from 'node:crypto';
import { AppError } from '@quarry/contracts';
import { strictest, vetAcsUrl } from './acs-url.ts';
import type { BookingsPorts } from './bookings-ports.ts';
import { findBooking } from './find-booking.ts';

/** EMV 3DS challenge window sizes (width × height; 05 fills its frame). */
const windowSizes: Record<string, { width: string; height: string }> = {
  '01': { width: '250px', height: '400px' },
  '02': { width: '390px', height: '400px' },
  '03': { width: '500px', height: '600px' },
  '04': { width: '600px', height: '400px' },
  '05': { width: '100%', height: '100%' },
};

const escape = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
/** JSON inside a script element: `<` escaped, so no value can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * GET /book/{bookingId}/tds: the booking's 3-D Secure challenge as one page a client can put in an
 * iframe. It posts `creq` to the issuer's ACS in a frame of its own, follows the booking, and tells
 * the parent window `3dsecure-finished` (with the stage) once the booking left
 * `awaitingTdsChallenge`. The page's security policy lets it post to that ACS only, and lets only
 * the client's own origins frame it (none set: no page may); the message names those origins.
 */
export async function renderTdsPage(
  ports: Pick<BookingsPorts, 'pool' | 'tdsPage'>,
  clientId: string,
  bookingId: unknown,
): Promise<{ html: string; contentSecurityPolicy: string }> {
  const booking = await findBooking(ports, clientId, bookingId);
  const challenge = booking.tdsChallenge;
  if (booking.stage !== 'awaitingTdsChallenge' || !challenge) {
    throw new AppError(
      'Conflict',
      `booking ${booking.bookingId} is in stage ${booking.stage}; a 3-D Secure challenge is shown in awaitingTdsChallenge only`,
      { stage: booking.stage },
    );
  }
  const policy = ports.tdsPage ?? strictest;
  const acsUrl = challenge.acsUrl ?? '';
  const acsOrigin = (await vetAcsUrl(policy, booking.bookingId, acsUrl)).origin;
  // Browsers deliver a message only to a parent of the origin named: naming each of the client's
  // origins reaches its page and no other (another page cannot frame this one anyway).
  const parents = await policy.frameOriginsOf(clientId);
  const nonce = randomBytes(16).toString('base64');
  const size = windowSizes[challenge.windowSize] ?? { width: '100%', height: '100%' };
  const session = challenge.threeDSSessionData
    ? `<input type="hidden" name="threeDSSessionData" value="${escape(challenge.threeDSSessionData)}">`
    : '';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Card verification</title>
<style nonce="${nonce}">html,body{margin:0;height:100%;background:#fff}iframe{border:0;display:block;margin:0 auto;width:${size.width};height:${size.height};max-width:100%}</style></head>
<body><iframe name="tds-challenge" id="tds-challenge" title="Card verification"></iframe>
<form id="tds-form" method="post" action="${escape(acsUrl)}" target="tds-challenge"><input type="hidden" name="creq" value="${escape(challenge.creq)}">${session}</form>
<script nonce="${nonce}">
document.getElementById('tds-form').submit();
const status = ${scriptJson(`/book/${booking.bookingId}`)};
const parents = ${scriptJson(parents)};
const follow = setInterval(async () => {
  const answer = await fetch(status, { credentials: 'same-origin', cache: 'no-store' }).catch(() => null);
  if (!answer || !answer.ok) return;
  const booking = await answer.json();
  if (booking.stage === 'awaitingTdsChallenge') return;
  clearInterval(follow);
  if (window.parent === window) return;
  for (const origin of parents) window.parent.postMessage({ type: '3dsecure-finished', bookingId: booking.bookingId, stage: booking.stage }, origin);
}, 1000);
</script></body></html>`;
  const contentSecurityPolicy = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; frame-src ${acsOrigin}; form-action ${acsOrigin}; base-uri 'none'; frame-ancestors ${parents.length > 0 ? parents.join(' ') : "'none'"}`;
  return { html, contentSecurityPolicy };
}
