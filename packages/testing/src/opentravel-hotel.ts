import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the hotel answers an order (`OTA_HotelResRQ`). `unreadable`: an endpoint that answers every
 * message as an availability request (an `OTA_HotelAvailRS` with Errors), as a hotel's endpoint that
 * implements only `OTA_HotelAvailRQ` does (the demo's did): the order's answer, and every read
 * (`OTA_ReadRQ`), cannot be read.
 */
export type OrderBehaviour = 'confirm' | 'sold-out' | 'decline' | 'card-invalid' | 'tds' | 'duplicate' | 'unreadable';

export type TestHotel = {
  /** The stay total before tax (e.g. "180.00"); VAT of 10 % is added. Change it to change the price. */
  price: string;
  currency?: string;
  /** Availability: none at all (OTA error 322). */
  soldOut?: boolean;
  order?: OrderBehaviour;
  /** Holds the answer to each order until `releaseOrders()` (the reservation is made first). */
  holdOrders?: boolean;
  /**
   * Answers each order this many ms after it arrived, and only then makes the reservation, as a
   * hotel that commits the order when it answers: until then `OTA_ReadRQ` finds nothing.
   */
  commitOnAnswerAfterMs?: number;
  /** Holds each order until `releaseOrders()`, and only then makes the reservation and answers. */
  commitOnRelease?: boolean;
  /** Answers each order this long after it arrived (the reservation is made at once): a slow hotel. */
  answerOrdersAfterMs?: number;
};

/** What the hotel received in one `OTA_HotelResRQ`, as read from its XML. */
export type ReceivedOrder = {
  hotelCode: string;
  reference: string;
  guests: Array<{ firstName: string; lastName: string }>;
  email: string;
  phone: string;
  cardNumber: string;
  /** As sent: MMYY. */
  expireDate: string;
  cardHolderName: string;
  cvv: string | null;
  total: string;
  currency: string;
  roomTypeCode: string;
  ratePlanCode: string;
  start: string;
  end: string;
};

export type Reservation = {
  reference: string;
  hotelCode: string;
  status: 'Committed' | 'PendingPaymentAuthentication' | 'Cancelled';
  confirmation: string;
  total: string;
  currency: string;
  /** Why it is cancelled: the issuer's refusal, or an OTA_CancelRQ. */
  cancelReason?: string;
};

/**
 * A hotel's OpenTravel endpoint on loopback, for booking tests and the bench: answers
 * `OTA_HotelAvailRQ` (two rooms), `OTA_HotelResRQ`, `OTA_ReadRQ` and `OTA_CancelRQ` with real XML, keeps every order
 * it received and its reservations by our reference, and plays the card issuer's 3-D Secure page
 * (`POST /acs`): the card holder's answer reaches the hotel there, never through Quarry.
 */
export type OpenTravelHotel = {
  url: string;
  origin: string;
  hotels: Map<string, TestHotel>;
  orders: ReceivedOrder[];
  reservations: Map<string, Reservation>;
  /** Counts by message name (OTA_HotelAvailRQ, OTA_HotelResRQ, OTA_ReadRQ, OTA_CancelRQ). */
  requests: Map<string, number>;
  /** Orders received and not answered yet, with the sender's end of the connection (who is waiting). */
  ordersInFlight: Set<{ reference: string; remoteAddress: string; remotePort: number }>;
  releaseOrders(): void;
  /** The card holder completes (or fails) the challenge of a reservation, as the issuer's page would tell the hotel. */
  completeChallenge(reference: string, passed: boolean): void;
  close(): Promise<void>;
};

const value = (body: string, pattern: RegExp) => pattern.exec(body)?.[1] ?? '';
const decode = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"');

function units(price: string): { total: string; before: string; tax: string } {
  const [whole = '0', fraction = ''] = price.split('.');
  const scale = 10 ** fraction.length;
  const before = Number(whole) * scale + Number(fraction || '0');
  const tax = Math.floor(before / 10);
  const format = (amount: number) =>
    fraction.length === 0 ? String(amount) : `${Math.floor(amount / scale)}.${String(amount % scale).padStart(fraction.length, '0')}`;
  return { total: format(before + tax), before: format(before), tax: format(tax) };
}

/** The double room costs half as much again as the standard one. */
const deluxe = (price: string) => {
  const [whole = '0', fraction = ''] = price.split('.');
  const scale = 10 ** fraction.length;
  const amount = Math.floor(((Number(whole) * scale + Number(fraction || '0')) * 3) / 2);
  return fraction.length === 0 ? String(amount) : `${Math.floor(amount / scale)}.${String(amount % scale).padStart(fraction.length, '0')}`;
};

function availRS(body: string, code: string, hotel: TestHotel): string {
  const echo = value(body, /EchoToken="([^"]*)"/);
  const start = value(body, /StayDateRange Start="([^"]*)"/);
  const end = value(body, /StayDateRange[^>]* End="([^"]*)"/);
  const guests = value(body, /GuestCount [^>]*Count="(\d+)"/);
  const ota = (inner: string) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${echo}">${inner}</OTA_HotelAvailRS>`;
  if (hotel.soldOut) return ota('<Errors><Error Type="3" Code="322" ShortText="No availability"/></Errors>');
  const currency = hotel.currency ?? 'USD';
  const rate = (room: string, price: string) => {
    const amounts = units(price);
    return `<RoomRate RoomTypeCode="${room}" RatePlanCode="FLEX"><Total AmountBeforeTax="${amounts.before}" AmountAfterTax="${amounts.total}" CurrencyCode="${currency}"><Taxes><Tax Code="19" Amount="${amounts.tax}" CurrencyCode="${currency}"><TaxDescription><Text>VAT</Text></TaxDescription></Tax></Taxes></Total></RoomRate>`;
  };
  return ota(`<Success/><RoomStays><RoomStay>
<RoomTypes><RoomType RoomTypeCode="STD"><RoomDescription Name="Standard"><Text>Standard room</Text></RoomDescription><Occupancy MaxOccupancy="2"/></RoomType><RoomType RoomTypeCode="DLX"><RoomDescription Name="Deluxe"><Text>Deluxe room</Text></RoomDescription><Occupancy MaxOccupancy="3"/></RoomType></RoomTypes>
<RatePlans><RatePlan RatePlanCode="FLEX" RatePlanName="Flexible"/></RatePlans>
<RoomRates>${rate('STD', hotel.price)}${rate('DLX', deluxe(hotel.price))}</RoomRates>
<GuestCounts><GuestCount AgeQualifyingCode="10" Count="${guests}"/></GuestCounts><TimeSpan Start="${start}" End="${end}"/><BasicPropertyInfo HotelCode="${code}"/>
</RoomStay></RoomStays>`);
}

function readOrder(body: string): ReceivedOrder {
  const guests = [...body.matchAll(/<GivenName>([^<]*)<\/GivenName><Surname>([^<]*)<\/Surname>/g)].map((match) => ({
    firstName: decode(match[1] ?? ''),
    lastName: decode(match[2] ?? ''),
  }));
  return {
    hotelCode: value(body, /HotelCode="([^"]+)"/),
    reference: value(body, /<UniqueID [^>]*ID="([^"]+)"/),
    guests,
    email: decode(value(body, /<Email>([^<]*)<\/Email>/)),
    phone: decode(value(body, /PhoneNumber="([^"]*)"/)),
    cardNumber: value(body, /CardNumber="([^"]*)"/),
    expireDate: value(body, /ExpireDate="([^"]*)"/),
    cardHolderName: decode(value(body, /<CardHolderName>([^<]*)<\/CardHolderName>/)),
    cvv: /SeriesCode="([^"]*)"/.exec(body)?.[1] ?? null,
    total: value(body, /<Total AmountAfterTax="([^"]+)"/),
    currency: value(body, /<Total [^>]*CurrencyCode="([^"]+)"/),
    roomTypeCode: value(body, /<RoomRate RoomTypeCode="([^"]+)"/),
    ratePlanCode: value(body, /<RoomRate [^>]*RatePlanCode="([^"]+)"/),
    start: value(body, /<TimeSpan Start="([^"]+)"/),
    end: value(body, /<TimeSpan [^>]*End="([^"]+)"/),
  };
}

function reservationXml(reservation: Reservation, origin: string): string {
  const challenge =
    reservation.status === 'PendingPaymentAuthentication'
      ? `<TPA_Extensions><ThreeDSChallenge Version="2.2.0" AcsUrl="${origin}/acs" Creq="${Buffer.from(JSON.stringify({ messageType: 'CReq', messageVersion: '2.2.0', threeDSServerTransID: reservation.reference, challengeWindowSize: '02' })).toString('base64url')}" ThreeDSSessionData="${Buffer.from(reservation.reference).toString('base64url')}" WindowSize="02" ExpiresAt="${new Date(Date.now() + 10 * 60_000).toISOString()}"/></TPA_Extensions>`
      : reservation.status === 'Cancelled'
        ? `<TPA_Extensions><StatusReason Text="${reservation.cancelReason ?? 'Card declined: authentication failed'}"/></TPA_Extensions>`
        : '';
  return (
    `<HotelReservation ResStatus="${reservation.status}"><UniqueID Type="14" ID="${reservation.reference}" ID_Context="Quarry"/>` +
    `<ResGlobalInfo><Total AmountAfterTax="${reservation.total}" CurrencyCode="${reservation.currency}"/><HotelReservationIDs><HotelReservationID ResID_Type="10" ResID_Value="${reservation.confirmation}"/></HotelReservationIDs></ResGlobalInfo>${challenge}</HotelReservation>`
  );
}

const bodyOf = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolve(body));
  });

/** `host`: the address it listens on (loopback 127.0.0.1 unless a test gives one of its own). */
export async function startOpenTravelHotel(options: { host?: string } = {}): Promise<OpenTravelHotel> {
  const ordersInFlight: OpenTravelHotel['ordersInFlight'] = new Set();
  const hotels = new Map<string, TestHotel>();
  const orders: ReceivedOrder[] = [];
  const reservations = new Map<string, Reservation>();
  const requests = new Map<string, number>();
  let held: Array<() => void> = [];
  let origin = '';
  let confirmations = 0;

  const answerOrder = (body: string, order: ReceivedOrder): string => {
    const echo = value(body, /EchoToken="([^"]*)"/);
    const ota = (inner: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<OTA_HotelResRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${echo}">${inner}</OTA_HotelResRS>`;
    const error = (code: string, text: string) => ota(`<Errors><Error Type="3" Code="${code}" ShortText="${text}"/></Errors>`);
    const hotel = hotels.get(order.hotelCode);
    if (!hotel) return error('392', 'Invalid hotel code');
    // ERR 127 "Reservation already exists" (OpenTravel code list ERR, as published at
    // https://app-smart-mgt-specifications-prd.azurewebsites.net/generic/code-lists/error-and-warning-code).
    if (reservations.has(order.reference) || hotel.order === 'duplicate') return error('127', 'Reservation already exists');
    if (hotel.soldOut || hotel.order === 'sold-out') return error('322', 'No availability');
    const current = order.roomTypeCode === 'DLX' ? units(deluxe(hotel.price)).total : units(hotel.price).total;
    if (order.total !== current) return error('450', `Price changed: the stay now costs ${current}`);
    if (hotel.order === 'decline') return error('450', 'Card declined by the issuer');
    if (hotel.order === 'card-invalid') return error('320', 'Invalid card number or expiry date');
    confirmations += 1;
    const reservation: Reservation = {
      reference: order.reference,
      hotelCode: order.hotelCode,
      status: hotel.order === 'tds' ? 'PendingPaymentAuthentication' : 'Committed',
      confirmation: `CNF-${order.hotelCode}-${confirmations}`,
      total: order.total,
      currency: order.currency,
    };
    reservations.set(order.reference, reservation);
    return ota(
      `<Success/>${hotel.order === 'tds' ? '' : '<Warnings><Warning Type="1" ShortText="Check-in from 15:00"/></Warnings>'}<HotelReservations>${reservationXml(reservation, origin)}</HotelReservations>`,
    );
  };

  const server: Server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      if (request.url === '/acs') {
        // The issuer's challenge page: a POST of creq (and the card holder's answer, in tests).
        const form = new URLSearchParams(body);
        const reference = Buffer.from(form.get('threeDSSessionData') ?? '', 'base64url').toString();
        const reservation = reservations.get(reference);
        if (reservation?.status === 'PendingPaymentAuthentication')
          reservation.status = form.get('outcome') === 'fail' ? 'Cancelled' : 'Committed';
        response.writeHead(200, { 'content-type': 'text/html' }).end('<p>Authentication complete</p>');
        return;
      }
      const message = /<(OTA_[A-Za-z]+)/.exec(body)?.[1] ?? 'unknown';
      requests.set(message, (requests.get(message) ?? 0) + 1);
      const send = (xml: string) => response.writeHead(200, { 'content-type': 'text/xml' }).end(xml);
      if (message === 'OTA_HotelAvailRQ') {
        const code = value(body, /HotelCode="([^"]+)"/);
        const hotel = hotels.get(code);
        if (!hotel)
          return send(
            `<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="${value(body, /EchoToken="([^"]*)"/)}"><Errors><Error Type="3" Code="392" ShortText="Invalid hotel code"/></Errors></OTA_HotelAvailRS>`,
          );
        return send(availRS(body, code, hotel));
      }
      const availOnly = (rq: string) =>
        send(
          `<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken=""><Errors><Error Type="10" Code="321" ShortText="request is not an OTA_HotelAvailRQ (${rq})"/></Errors></OTA_HotelAvailRS>`,
        );
      if (message === 'OTA_HotelResRQ' && hotels.get(value(body, /HotelCode="([^"]+)"/))?.order === 'unreadable') {
        orders.push(readOrder(body));
        return availOnly(message);
      }
      if (
        message === 'OTA_ReadRQ' &&
        orders.some(
          (order) => hotels.get(order.hotelCode)?.order === 'unreadable' && order.reference === value(body, /<UniqueID [^>]*ID="([^"]+)"/),
        )
      ) {
        return availOnly(message);
      }
      if (message === 'OTA_HotelResRQ') {
        const order = readOrder(body);
        orders.push(order);
        const hotel = hotels.get(order.hotelCode);
        const waiting = {
          reference: order.reference,
          remoteAddress: request.socket.remoteAddress ?? '',
          remotePort: request.socket.remotePort ?? 0,
        };
        ordersInFlight.add(waiting);
        response.once('close', () => ordersInFlight.delete(waiting));
        // Committed when answered, whether or not the caller is still there to read it.
        if (hotel?.commitOnAnswerAfterMs !== undefined)
          return void setTimeout(() => send(answerOrder(body, order)), hotel.commitOnAnswerAfterMs);
        if (hotel?.commitOnRelease) return void held.push(() => send(answerOrder(body, order)));
        const answer = answerOrder(body, order);
        if (hotel?.holdOrders) held.push(() => send(answer));
        else if (hotel?.answerOrdersAfterMs) setTimeout(() => send(answer), hotel.answerOrdersAfterMs);
        else send(answer);
        return;
      }
      if (message === 'OTA_ReadRQ') {
        const echo = value(body, /EchoToken="([^"]*)"/);
        const reservation = reservations.get(value(body, /<UniqueID [^>]*ID="([^"]+)"/));
        return send(
          `<?xml version="1.0" encoding="UTF-8"?>\n<OTA_ResRetrieveRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${echo}"><Success/><ReservationsList>${reservation ? reservationXml(reservation, origin) : ''}</ReservationsList></OTA_ResRetrieveRS>`,
        );
      }
      if (message === 'OTA_CancelRQ') {
        const echo = value(body, /EchoToken="([^"]*)"/);
        const reference = value(body, /<UniqueID [^>]*ID="([^"]+)"/);
        const reservation = reservations.get(reference);
        const cancelRS = (inner: string, status = '') =>
          `<?xml version="1.0" encoding="UTF-8"?>\n<OTA_CancelRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${echo}"${status}>${inner}</OTA_CancelRS>`;
        if (!reservation) return send(cancelRS('<Errors><Error Type="3" Code="245" ShortText="Reservation not found"/></Errors>'));
        if (reservation.status !== 'Cancelled')
          Object.assign(reservation, { status: 'Cancelled', cancelReason: 'Cancelled by the booker' });
        return send(cancelRS(`<Success/><UniqueID Type="14" ID="${reference}" ID_Context="Quarry"/>`, ' Status="Cancelled"'));
      }
      response.writeHead(400).end('unknown message');
    });
  });
  const host = options.host ?? '127.0.0.1';
  server.listen(0, host);
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/ota`,
    origin,
    hotels,
    orders,
    reservations,
    requests,
    ordersInFlight,
    releaseOrders() {
      const waiting = held;
      held = [];
      for (const answer of waiting) answer();
    },
    completeChallenge(reference, passed) {
      const reservation = reservations.get(reference);
      if (reservation?.status === 'PendingPaymentAuthentication') reservation.status = passed ? 'Committed' : 'Cancelled';
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
