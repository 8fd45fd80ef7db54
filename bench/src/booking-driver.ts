import { Pool } from 'undici';

type Status = { bookingId: string; stage: string; finalPrice?: unknown; error?: { code: string } | null };

/**
 * The clients of the bookings benches: whole bookings through the API (create → price check →
 * book → final price → consent → confirmed), each client reading its booking's status every
 * `statusPollMs` while it waits. undici's own request, not fetch: the clients share the machine
 * with what is measured, and fetch spends more of the CPU they share per request.
 */
export function createBookingDriver(options: {
  base: string;
  authorization: string;
  connections: number;
  statusPollMs: number;
  checkIn: string;
}) {
  const connections = new Pool(options.base, { connections: options.connections });
  let statusReads = 0;
  let lastBookingId = '';
  /** Failed bookings by error code, for the table: a failure is named, not only counted. */
  const failureCodes = new Map<string, number>();
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Status> => {
    if (method === 'GET') statusReads += 1;
    const response = await connections.request({
      method,
      path,
      headers: { authorization: options.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await response.body.json()) as Status;
  };
  const until = async (bookingId: string, stages: string[]) => {
    for (;;) {
      const status = await call('GET', `/book/${bookingId}`);
      if (stages.includes(status.stage)) return status;
      await new Promise((resolve) => setTimeout(resolve, options.statusPollMs));
    }
  };
  const failed = (status: { error?: { code: string } | null }) => {
    const code = status.error?.code ?? 'unknown';
    failureCodes.set(code, (failureCodes.get(code) ?? 0) + 1);
    return false;
  };
  const details = {
    mainGuest: { firstName: 'Ada', lastName: 'Lovelace' },
    otherGuests: [],
    contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' },
  };
  return {
    /** One whole booking of this hotel's room and rate; resolves whether it was confirmed. */
    book: (hotelId: string, roomId: string, rateId: string) => async (): Promise<boolean> => {
      const { bookingId } = await call('POST', '/v1/bookings', { hotelId, checkIn: options.checkIn, nights: 1, guests: 2, roomId, rateId });
      const priced = await until(bookingId, ['priceConfirmed', 'failed']);
      if (priced.stage !== 'priceConfirmed') return failed(priced);
      await call('POST', `/book/${bookingId}`, { details, panToken: 'v2:'.padEnd(299, 'B') });
      const quoted = await until(bookingId, ['finalPriceConsent', 'failed']);
      if (quoted.stage !== 'finalPriceConsent') return failed(quoted);
      await call('POST', `/book/${bookingId}/consent`, { finalPrice: quoted.finalPrice });
      const done = await until(bookingId, ['bookingConfirmed', 'failed']);
      lastBookingId = bookingId;
      return done.stage === 'bookingConfirmed' || failed(done);
    },
    statusReads: () => statusReads,
    lastBookingId: () => lastBookingId,
    failureCodes,
    codes: () => [...failureCodes].map(([code, count]) => `${code} ×${count}`).join(', '),
    close: () => connections.close(),
  };
}
