import { randomBytes, randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { demoCards, demoOtp } from './demo-cards.ts';
import { formatAmount, quoteStay } from './demo-prices.ts';
import { demoProperties } from './demo-properties.ts';

/**
 * The reservation side of the demo's OpenTravel endpoint: `OTA_HotelResRQ` (book), `OTA_ReadRQ`
 * (find a reservation by the booker's UniqueID) and `OTA_CancelRQ`, with a card issuer's 3-D Secure
 * page (`/acs/challenge`) for the demo card that is challenged. It keeps what it received, for
 * `GET /reservations`: never a card number, only its last four digits.
 */
type DemoReservation = {
  /** The booker's reference (UniqueID Type 14): how OTA_ReadRQ and OTA_CancelRQ name it. */
  reference: string;
  hotelCode: string;
  status: 'Committed' | 'PendingPaymentAuthentication' | 'Cancelled';
  /** The hotel's own confirmation number (HotelReservationID ResID_Type 10). */
  confirmation: string;
  roomTypeCode: string;
  ratePlanCode: string;
  start: string;
  end: string;
  guests: string[];
  total: string;
  currency: string;
  cardLast4: string;
  cvvReceived: boolean;
  statusReason?: string;
  /** Every message about it, in the order received. */
  received: Array<{ message: string; at: string }>;
};

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseAttributeValue: false,
  parseTagValue: false,
  processEntities: true,
  htmlEntities: false,
});
const escapeXml = (value: string) => value.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
type Node = Record<string, unknown>;
const node = (value: unknown): Node | undefined =>
  Array.isArray(value) ? node(value[0]) : value !== null && typeof value === 'object' ? (value as Node) : undefined;
const nodes = (value: unknown): Node[] =>
  Array.isArray(value) ? value.map(node).filter((item): item is Node => item !== undefined) : node(value) ? [node(value) as Node] : [];
const attr = (value: Node | undefined, name: string): string | undefined =>
  typeof value?.[`@${name}`] === 'string' ? (value[`@${name}`] as string) : undefined;
/** The first node named `name` anywhere under `root` (the demo reads a request's few fields wherever they are). */
function find(root: unknown, name: string): Node | undefined {
  const start = node(root);
  if (!start) return undefined;
  for (const [key, value] of Object.entries(start)) {
    if (key === name) return node(value);
    for (const child of Array.isArray(value) ? value : [value]) {
      const found = find(child, name);
      if (found) return found;
    }
  }
  return undefined;
}
function findAll(root: unknown, name: string, into: Node[] = []): Node[] {
  const start = node(root);
  if (!start) return into;
  for (const [key, value] of Object.entries(start)) {
    if (key === name) into.push(...nodes(value));
    else for (const child of Array.isArray(value) ? value : [value]) findAll(child, name, into);
  }
  return into;
}
const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : typeof node(value)?.['#text'] === 'string' ? (node(value)?.['#text'] as string) : '';

const ota = (root: string, echoToken: string, inner: string, extra = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${escapeXml(echoToken)}" TimeStamp="${new Date().toISOString()}"${extra}>${inner}</${root}>`;
const errors = (type: string, code: string, text: string) =>
  `<Errors><Error Type="${type}" Code="${code}" ShortText="${escapeXml(text)}"/></Errors>`;

export type DemoReservations = {
  reservations: DemoReservation[];
  /** The answer to an OTA_HotelResRQ, OTA_ReadRQ or OTA_CancelRQ; undefined for other messages. */
  answer(xml: string): string | undefined;
  /** The issuer's challenge page (`POST /acs/challenge`, creq and threeDSSessionData). */
  challengePage(form: URLSearchParams): string;
  /** The card holder's code (`POST /acs/verify`): the issuer tells the hotel the outcome. */
  verify(form: URLSearchParams): string;
};

export function createDemoReservations(origin: () => string): DemoReservations {
  const reservations: DemoReservation[] = [];
  const byReference = (reference: string) => reservations.find((reservation) => reservation.reference === reference);
  const note = (reservation: DemoReservation, message: string) => reservation.received.push({ message, at: new Date().toISOString() });

  function reservationXml(reservation: DemoReservation): string {
    const challenge =
      reservation.status === 'PendingPaymentAuthentication'
        ? `<TPA_Extensions><ThreeDSChallenge Version="2.2.0" AcsUrl="${escapeXml(`${origin()}/acs/challenge`)}" Creq="${Buffer.from(JSON.stringify({ messageType: 'CReq', messageVersion: '2.2.0', threeDSServerTransID: randomUUID(), acsTransID: reservation.reference, challengeWindowSize: '02' })).toString('base64url')}" ThreeDSSessionData="${Buffer.from(reservation.reference).toString('base64url')}" WindowSize="02" ExpiresAt="${new Date(Date.now() + 10 * 60_000).toISOString()}"/></TPA_Extensions>`
        : reservation.statusReason
          ? `<TPA_Extensions><StatusReason Text="${escapeXml(reservation.statusReason)}"/></TPA_Extensions>`
          : '';
    return (
      `<HotelReservation ResStatus="${reservation.status}"><UniqueID Type="14" ID="${escapeXml(reservation.reference)}" ID_Context="Quarry"/>` +
      `<ResGlobalInfo><Total AmountAfterTax="${reservation.total}" CurrencyCode="${reservation.currency}"/><HotelReservationIDs>` +
      `<HotelReservationID ResID_Type="14" ResID_Value="${escapeXml(reservation.reference)}"/><HotelReservationID ResID_Type="10" ResID_Value="${reservation.confirmation}"/></HotelReservationIDs></ResGlobalInfo>${challenge}</HotelReservation>`
    );
  }

  function book(rq: Node): string {
    const echo = attr(rq, 'EchoToken') ?? '';
    const rs = (inner: string) => ota('OTA_HotelResRS', echo, inner);
    const reference = attr(find(rq, 'UniqueID'), 'ID');
    const hotelCode = attr(find(rq, 'BasicPropertyInfo'), 'HotelCode') ?? '';
    const rate = find(rq, 'RoomRate');
    const span = find(rq, 'TimeSpan');
    const total = find(rq, 'Total');
    const card = find(rq, 'PaymentCard');
    const guests = Number(attr(find(rq, 'GuestCount'), 'Count'));
    const [start, end] = [attr(span, 'Start') ?? '', attr(span, 'End') ?? ''];
    if (
      !reference ||
      !rate ||
      !total ||
      !card ||
      !/^\d{4}-\d{2}-\d{2}$/.test(start) ||
      !/^\d{4}-\d{2}-\d{2}$/.test(end) ||
      !Number.isInteger(guests)
    ) {
      return rs(
        errors('10', '321', 'Required field missing: UniqueID, RoomRate, TimeSpan, GuestCount, Total and PaymentCard are required'),
      );
    }
    const property = demoProperties[hotelCode];
    if (!property) return rs(errors('3', '392', 'Invalid hotel code'));
    if (byReference(reference)) return rs(errors('3', '127', 'Reservation already exists'));
    if (start < new Date().toISOString().slice(0, 10)) return rs(errors('3', '15', 'Invalid date: the stay starts in the past'));
    const nights = Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000);
    const quote = quoteStay(property, start, nights, guests).find(
      (candidate) => candidate.room.code === attr(rate, 'RoomTypeCode') && candidate.plan.code === attr(rate, 'RatePlanCode'),
    );
    if (!quote) return rs(errors('3', '322', 'No availability'));
    const current = formatAmount(quote.beforeTax + quote.vat + quote.cityTax, property.decimals);
    if (attr(total, 'AmountAfterTax') !== current || attr(total, 'CurrencyCode') !== property.currency) {
      return rs(errors('3', '143', `Price changed: the stay now costs ${current} ${property.currency}`));
    }
    const cardNumber = attr(card, 'CardNumber') ?? '';
    // A refusal worded as many hotels word it, under the code that names no outcome ("Unable to process").
    if (cardNumber === demoCards.declined) return rs(errors('3', '450', 'Unable to authorize – please enter alternate credit card'));
    const reservation: DemoReservation = {
      reference,
      hotelCode,
      status: cardNumber === demoCards.challenged ? 'PendingPaymentAuthentication' : 'Committed',
      confirmation: `${hotelCode.slice(0, 2)}-${randomBytes(4).toString('hex').toUpperCase()}`,
      roomTypeCode: quote.room.code,
      ratePlanCode: quote.plan.code,
      start,
      end,
      guests: findAll(rq, 'PersonName').map((name) => `${textOf(name.GivenName)} ${textOf(name.Surname)}`.trim()),
      total: current,
      currency: property.currency,
      cardLast4: cardNumber.slice(-4),
      cvvReceived: attr(card, 'SeriesCode') !== undefined,
      received: [],
    };
    reservations.push(reservation);
    note(reservation, 'OTA_HotelResRQ');
    const warning = reservation.status === 'Committed' ? '<Warnings><Warning Type="11" ShortText="Check-in from 15:00"/></Warnings>' : '';
    return rs(`<Success/>${warning}<HotelReservations>${reservationXml(reservation)}</HotelReservations>`);
  }

  function read(rq: Node): string {
    const reference = attr(find(rq, 'UniqueID'), 'ID') ?? '';
    const reservation = byReference(reference);
    if (reservation) note(reservation, 'OTA_ReadRQ');
    return ota(
      'OTA_ResRetrieveRS',
      attr(rq, 'EchoToken') ?? '',
      `<Success/><ReservationsList>${reservation ? reservationXml(reservation) : ''}</ReservationsList>`,
    );
  }

  function cancel(rq: Node): string {
    const echo = attr(rq, 'EchoToken') ?? '';
    const reference = attr(find(rq, 'UniqueID'), 'ID') ?? '';
    const reservation = byReference(reference);
    if (!reservation) return ota('OTA_CancelRS', echo, errors('3', '97', 'Booking reference not found'));
    note(reservation, 'OTA_CancelRQ');
    if (reservation.status !== 'Cancelled') Object.assign(reservation, { status: 'Cancelled', statusReason: 'Cancelled by the booker' });
    return ota(
      'OTA_CancelRS',
      echo,
      `<Success/><UniqueID Type="14" ID="${escapeXml(reference)}" ID_Context="Quarry"/>`,
      ' Status="Cancelled"',
    );
  }

  const page = (body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Demo Bank</title>` +
    `<style>body{font-family:system-ui,sans-serif;margin:16px;color:#1d2330}input{padding:8px;font-size:15px}button{margin-top:10px;padding:9px 16px}</style></head><body>${body}</body></html>`;
  const pending = (reference: string) => {
    const reservation = byReference(reference);
    return reservation?.status === 'PendingPaymentAuthentication' ? reservation : undefined;
  };

  return {
    reservations,
    answer(xml) {
      let document: Node;
      try {
        document = parser.parse(xml) as Node;
      } catch {
        return undefined;
      }
      const body = node(node(document.Envelope)?.Body) ?? document;
      const [name, rq] = Object.entries(body).find(([key]) => key.startsWith('OTA_')) ?? [];
      const request = node(rq);
      if (!request) return undefined;
      if (name === 'OTA_HotelResRQ') return book(request);
      if (name === 'OTA_ReadRQ') return read(request);
      if (name === 'OTA_CancelRQ') return cancel(request);
      return undefined;
    },
    challengePage(form) {
      const reference = Buffer.from(form.get('threeDSSessionData') ?? '', 'base64url').toString('utf8');
      if (!pending(reference)) return page('<p id="acs-unknown">This verification is no longer valid.</p>');
      return page(
        `<h2>Demo Bank · confirm your payment</h2><p>Enter the one-time code we sent to your phone ending in 0000 (demo code ${demoOtp}).</p>` +
          `<form method="post" action="/acs/verify"><input type="hidden" name="reference" value="${escapeXml(reference)}">` +
          `<label for="otp">One-time code</label> <input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code"> <button type="submit" id="otp-submit">Confirm</button></form>`,
      );
    },
    verify(form) {
      const reservation = pending(form.get('reference') ?? '');
      if (!reservation) return page('<p id="acs-unknown">This verification is no longer valid.</p>');
      // The issuer's answer reaches the hotel (here, at once), never the booker: the booker reads the reservation.
      const passed = form.get('otp') === demoOtp;
      Object.assign(
        reservation,
        passed ? { status: 'Committed' } : { status: 'Cancelled', statusReason: 'Card declined: 3-D Secure authentication failed' },
      );
      note(reservation, passed ? '3-D Secure passed' : '3-D Secure failed');
      return page(
        `<p id="acs-result">${passed ? 'Payment confirmed. You can return to the merchant.' : 'The code was not correct: the payment was not confirmed.'}</p>`,
      );
    },
  };
}
