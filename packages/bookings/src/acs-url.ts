import { AppError, type BookingStatus } from '@quarry/contracts';
import { createAddressGuard } from '@quarry/safe-fetch';
import type { AcsUrlPolicy, TdsPagePorts } from './bookings-ports.ts';

/** 127.0.0.0/8, ::1 and `localhost`: a hotel (and its ACS) on this machine. */
const isLoopbackHost = (hostname: string) => /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i.test(hostname);

/** Without a deployment's policy: no page may frame it, and the ACS must be public and https:. */
export const strictest: TdsPagePorts = {
  frameOriginsOf: async () => [],
  vetAcsHost: (hostname) => createAddressGuard([]).vet(hostname),
  allowLoopbackHttp: false,
};

/**
 * The hotel's ACS URL, checked before the page posts the card holder there: an https: URL (http:
 * only on loopback with the development allowance), no credentials in it, on an address the SSRF
 * policy allows. Anything else is refused naming the field: the page answers a 409, GET /book leaves
 * the URL out.
 */
export async function vetAcsUrl(ports: AcsUrlPolicy, bookingId: string, acsUrl: string): Promise<URL> {
  const refuse = (why: string) =>
    new AppError(
      'Conflict',
      `tdsChallenge.acsUrl ${why}: the hotel's 3-D Secure page is not shown; cancel booking ${bookingId} (POST /book/${bookingId}/cancel) or let it end TdsTimeout`,
      { field: 'tdsChallenge.acsUrl' },
    );
  let url: URL;
  try {
    url = new URL(acsUrl);
  } catch {
    throw refuse('is not a URL');
  }
  const plainOnLoopback = url.protocol === 'http:' && ports.allowLoopbackHttp && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !plainOnLoopback) throw refuse('is not an https: URL');
  if (url.username !== '' || url.password !== '') throw refuse('carries credentials');
  try {
    await ports.vetAcsHost(url.hostname);
  } catch {
    throw refuse('is not on a public address');
  }
  return url;
}

/**
 * The hotel's ACS URL reaches the client (GET /book, the booking's callbacks) only when the 3-D
 * Secure page would post the card holder there: a client that sends its card holder to
 * `tdsChallenge.acsUrl` itself must not be handed an http: URL or an address of our network. A
 * refused one is left out and named in `acsUrlRefused`.
 */
export async function withVettedAcsUrl(policy: AcsUrlPolicy | undefined, status: BookingStatus): Promise<BookingStatus> {
  const challenge = status.tdsChallenge;
  if (!challenge) return status;
  try {
    await vetAcsUrl(policy ?? strictest, status.bookingId, challenge.acsUrl ?? '');
    return status;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const { acsUrl: _refused, ...shown } = challenge;
    return { ...status, tdsChallenge: { ...shown, acsUrlRefused: error.message } };
  }
}
