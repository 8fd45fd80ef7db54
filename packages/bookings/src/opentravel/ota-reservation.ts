import { currencyExponent, type HotelSource, type Price } from '@quarry/contracts';
import { asNode, attr, checkOutOf, list, otaXmlParserOptions, text, toPrice, type OtaNode } from '@quarry/rates';
import { XMLParser } from 'fast-xml-parser';
import type { CancelOutcome, Order, OrderOutcome } from '../booking-engine.ts';
import { codeOfErrors, saysNotFound } from './ota-error-codes.ts';

type OpenTravelSource = Extract<HotelSource, { kind: 'opentravel' }>;

/** Our reference's UniqueID: Type 14 is "Reservation" in the OpenTravel code list UIT. */
const uniqueIdType = '14';
const referenceContext = 'Quarry';

const escapeXml = (value: string) => value.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** OpenTravel card codes (CardCode) by the card number's issuer prefix; the hotel may ignore it. */
function cardCodeOf(pan: string): string {
  if (/^4/.test(pan)) return 'VI';
  if (/^(5[1-5]|2[2-7])/.test(pan)) return 'MC';
  if (/^3[47]/.test(pan)) return 'AX';
  if (/^3(0[0-5]|[689])/.test(pan)) return 'DC';
  if (/^(6011|65)/.test(pan)) return 'DS';
  if (/^35/.test(pan)) return 'JC';
  return 'XX';
}

function decimalOf(price: Price): { amount: string; decimals: number } {
  const exponent = currencyExponent(price.currencyCode);
  const digits = String(Math.abs(price.value)).padStart(exponent + 1, '0');
  const amount = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return { amount: `${price.value < 0 ? '-' : ''}${amount}`, decimals: exponent };
}

function guestXml(rph: number, guest: { firstName: string; lastName: string }, contact?: Order['contact']): string {
  const contactXml = contact ? `<Telephone PhoneNumber="${escapeXml(contact.phone)}"/><Email>${escapeXml(contact.email)}</Email>` : '';
  return (
    `<ResGuest ResGuestRPH="${rph}"${rph === 1 ? ' PrimaryIndicator="true"' : ''} AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile ProfileType="1"><Customer>` +
    `<PersonName><GivenName>${escapeXml(guest.firstName)}</GivenName><Surname>${escapeXml(guest.lastName)}</Surname></PersonName>${contactXml}` +
    `</Customer></Profile></ProfileInfo></Profiles></ResGuest>`
  );
}

/**
 * `OTA_HotelResRQ` (ResStatus Commit) for one room: every guest as a ResGuest (the main guest
 * first, with the contact), the card as the guarantee, the consented total, and our reference as
 * the reservation's UniqueID. The XML carries the card: it is never logged.
 */
export function buildHotelResRQ(source: OpenTravelSource, order: Order, echoToken: string): string {
  const { amount, decimals } = decimalOf(order.total);
  const currency = order.total.currencyCode.toUpperCase();
  const [roomTypeCode, ratePlanCode] = splitRateId(order.roomId, order.rateId);
  const guests = [order.mainGuest, ...order.otherGuests];
  const expire = `${String(order.card.expiryMonth).padStart(2, '0')}${String(order.card.expiryYear % 100).padStart(2, '0')}`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<OTA_HotelResRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${escapeXml(echoToken)}" ResStatus="Commit">
  <POS><Source>${source.requestorId ? `<RequestorID Type="18" ID="${escapeXml(source.requestorId)}"/>` : ''}</Source></POS>
  <HotelReservations>
    <HotelReservation RoomStayReservation="true">
      <UniqueID Type="${uniqueIdType}" ID="${escapeXml(order.reference)}" ID_Context="${referenceContext}"/>
      <RoomStays><RoomStay>
        <RoomTypes><RoomType RoomTypeCode="${escapeXml(roomTypeCode)}" NumberOfUnits="1"/></RoomTypes>
        <RatePlans><RatePlan RatePlanCode="${escapeXml(ratePlanCode)}"/></RatePlans>
        <RoomRates><RoomRate RoomTypeCode="${escapeXml(roomTypeCode)}" RatePlanCode="${escapeXml(ratePlanCode)}" NumberOfUnits="1"/></RoomRates>
        <GuestCounts><GuestCount AgeQualifyingCode="10" Count="${order.stay.guests}"/></GuestCounts>
        <TimeSpan Start="${order.stay.checkIn}" End="${checkOutOf({ hotelId: '', ...order.stay })}"/>
        <Total AmountAfterTax="${amount}" CurrencyCode="${currency}" DecimalPlaces="${decimals}"/>
        <BasicPropertyInfo HotelCode="${escapeXml(source.hotelCode)}"${source.chainCode ? ` ChainCode="${escapeXml(source.chainCode)}"` : ''}/>
        <ResGuestRPHs>${guests.map((_, index) => `<ResGuestRPH RPH="${index + 1}"/>`).join('')}</ResGuestRPHs>
      </RoomStay></RoomStays>
      <ResGuests>${guests.map((guest, index) => guestXml(index + 1, guest, index === 0 ? order.contact : undefined)).join('')}</ResGuests>
      <ResGlobalInfo>
        <Guarantee GuaranteeType="GuaranteeRequired"><GuaranteesAccepted><GuaranteeAccepted><PaymentCard CardCode="${cardCodeOf(order.card.pan)}" CardNumber="${escapeXml(order.card.pan)}" ExpireDate="${expire}"${order.card.cvv ? ` SeriesCode="${escapeXml(order.card.cvv)}"` : ''}><CardHolderName>${escapeXml(order.card.name)}</CardHolderName></PaymentCard></GuaranteeAccepted></GuaranteesAccepted></Guarantee>
        <Total AmountAfterTax="${amount}" CurrencyCode="${currency}" DecimalPlaces="${decimals}"/>
      </ResGlobalInfo>
    </HotelReservation>
  </HotelReservations>
</OTA_HotelResRQ>`;
}

/** `OTA_ReadRQ`: the reservation the hotel holds under our reference (after a crash, after a challenge). */
export function buildReadRQ(source: OpenTravelSource, reference: string, echoToken: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${escapeXml(echoToken)}">
  <POS><Source>${source.requestorId ? `<RequestorID Type="18" ID="${escapeXml(source.requestorId)}"/>` : ''}</Source></POS>
  <ReadRequests><ReadRequest><UniqueID Type="${uniqueIdType}" ID="${escapeXml(reference)}" ID_Context="${referenceContext}"/>
    <Verification><TPA_Extensions><BasicPropertyInfo HotelCode="${escapeXml(source.hotelCode)}"/></TPA_Extensions></Verification>
  </ReadRequest></ReadRequests>
</OTA_ReadRQ>`;
}

/**
 * `OTA_CancelRQ`: cancels the reservation under our reference (a 3-D Secure challenge left to
 * expire: the booking failed, so the hotel must not keep holding the room).
 */
export function buildCancelRQ(source: OpenTravelSource, reference: string, echoToken: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<OTA_CancelRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${escapeXml(echoToken)}" CancelType="Cancel">
  <POS><Source>${source.requestorId ? `<RequestorID Type="18" ID="${escapeXml(source.requestorId)}"/>` : ''}</Source></POS>
  <UniqueID Type="${uniqueIdType}" ID="${escapeXml(reference)}" ID_Context="${referenceContext}"/>
  <Verification><TPA_Extensions><BasicPropertyInfo HotelCode="${escapeXml(source.hotelCode)}"/></TPA_Extensions></Verification>
</OTA_CancelRQ>`;
}

/** The rates feed names an OpenTravel rate `ROOMTYPE:RATEPLAN` (its room id is the room type code). */
export function splitRateId(roomId: string, rateId: string): [string, string] {
  const prefix = `${roomId}:`;
  return [roomId, rateId.startsWith(prefix) ? rateId.slice(prefix.length) : rateId];
}

const parser = new XMLParser({
  ...otaXmlParserOptions,
  isArray: (name) => ['HotelReservation', 'Error', 'Warning', 'HotelReservationID', 'RoomStay'].includes(name),
});

/** A message the hotel sent that is not an answer we can read: the outcome stays unknown. */
class UnreadableAnswer extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableAnswer';
  }
}

function priceOfTotal(total: OtaNode | undefined): Price | undefined {
  const amount = attr(total, 'AmountAfterTax') ?? attr(total, 'AmountBeforeTax');
  const currency = attr(total, 'CurrencyCode');
  if (!amount || !currency) return undefined;
  const decimals = attr(total, 'DecimalPlaces');
  return toPrice(amount, currency, decimals === undefined ? undefined : Number(decimals));
}

const confirmedStatuses = /^(commit(ted)?|reserved|book(ed)?|confirmed|modify)$/i;
const pendingStatuses = /^(pending.*|requested|initiate|waitlisted|on ?hold)$/i;
const refusedStatuses = /^(cancel(l?ed)?|rejected|declined|ignore)$/i;

/** One `HotelReservation` → its outcome; `reference` is ours (never taken as the hotel's number). */
function outcomeOfReservation(
  reservation: OtaNode,
  warnings: OtaNode[],
  reference: string,
  fallbackStatus: string | undefined,
  expected?: Price,
): OrderOutcome {
  const status = attr(reservation, 'ResStatus') ?? fallbackStatus ?? '';
  const extensions = asNode(reservation.TPA_Extensions);
  const challenge = asNode(extensions?.ThreeDSChallenge);
  if (pendingStatuses.test(status) || (challenge && !confirmedStatuses.test(status))) {
    const acsUrl = attr(challenge, 'AcsUrl');
    const creq = attr(challenge, 'Creq');
    if (!challenge || !acsUrl || !creq) return { status: 'pending' };
    const windowSize = attr(challenge, 'WindowSize') ?? '05';
    const sessionData = attr(challenge, 'ThreeDSSessionData');
    const expiresAt = attr(challenge, 'ExpiresAt');
    return {
      status: 'challenge',
      challenge: {
        version: attr(challenge, 'Version') ?? '2.2.0',
        acsUrl,
        creq,
        ...(sessionData ? { threeDSSessionData: sessionData } : {}),
        windowSize: (['01', '02', '03', '04', '05'].includes(windowSize) ? windowSize : '05') as '01' | '02' | '03' | '04' | '05',
        ...(expiresAt ? { expiresAt } : {}),
      },
    };
  }
  if (refusedStatuses.test(status)) {
    const reason = text(asNode(extensions?.StatusReason)) ?? attr(asNode(extensions?.StatusReason), 'Text') ?? status;
    return { status: 'failed', ...codeOfErrors([{ '@ShortText': reason }]) };
  }
  if (!confirmedStatuses.test(status))
    throw new UnreadableAnswer(`reservation status "${status.slice(0, 40)}" is not one this engine knows`);
  const ids = list(asNode(asNode(reservation.ResGlobalInfo)?.HotelReservationIDs)?.HotelReservationID);
  const hotelId = ids.find((id) => attr(id, 'ResID_Type') === '10') ?? ids.find((id) => attr(id, 'ResID_Value') !== reference);
  const confirmationNumber = attr(hotelId, 'ResID_Value');
  if (!confirmationNumber) throw new UnreadableAnswer('a confirmed reservation without a confirmation number (HotelReservationID)');
  const price =
    priceOfTotal(asNode(asNode(reservation.ResGlobalInfo)?.Total)) ??
    priceOfTotal(asNode(list(asNode(reservation.RoomStays)?.RoomStay)[0]?.Total)) ??
    expected;
  if (!price) throw new UnreadableAnswer('a confirmed reservation without a total');
  const message = warnings
    .map((warning) => attr(warning, 'ShortText') ?? text(warning))
    .filter(Boolean)
    .join('; ');
  return {
    status: 'confirmed',
    confirmation: { reference: confirmationNumber, ...(message ? { message: message.slice(0, 500) } : {}), price },
  };
}

function parse(xml: string): OtaNode {
  try {
    return parser.parse(xml) as OtaNode;
  } catch (error) {
    throw new UnreadableAnswer(`the answer is not XML: ${(error as Error).message}`);
  }
}

function rootOf(document: OtaNode, name: string): OtaNode | undefined {
  return asNode(document[name]) ?? asNode(asNode(asNode(document.Envelope)?.Body)?.[name]);
}

function checkEcho(root: OtaNode, echoToken: string): void {
  if (attr(root, 'EchoToken') !== echoToken) throw new UnreadableAnswer(`the answer's EchoToken is not the request's ${echoToken}`);
}

/** `OTA_HotelResRS` → the order's outcome. */
export function readHotelResRS(xml: string, echoToken: string, reference: string, expected: Price): OrderOutcome {
  const root = rootOf(parse(xml), 'OTA_HotelResRS');
  if (!root) throw new UnreadableAnswer('the answer is not an OTA_HotelResRS');
  checkEcho(root, echoToken);
  const errors = list(asNode(root.Errors)?.Error);
  if (errors.length > 0) return { status: 'failed', ...codeOfErrors(errors) };
  const reservation = list(asNode(root.HotelReservations)?.HotelReservation)[0];
  if (!reservation) throw new UnreadableAnswer('OTA_HotelResRS has neither Errors nor a HotelReservation');
  const warnings = list(asNode(root.Warnings)?.Warning);
  return outcomeOfReservation(reservation, warnings, reference, attr(root, 'ResResponseType'), expected);
}

/** `OTA_ResRetrieveRS` (the answer to OTA_ReadRQ) → the reservation under our reference, or none. */
export function readResRetrieveRS(xml: string, echoToken: string, reference: string): OrderOutcome | { status: 'notFound' } {
  const document = parse(xml);
  const root = rootOf(document, 'OTA_ResRetrieveRS') ?? rootOf(document, 'OTA_HotelResRS');
  if (!root) throw new UnreadableAnswer('the answer is not an OTA_ResRetrieveRS');
  checkEcho(root, echoToken);
  const errors = list(asNode(root.Errors)?.Error);
  const reservations = [
    ...list(asNode(root.ReservationsList)?.HotelReservation),
    ...list(asNode(root.HotelReservations)?.HotelReservation),
  ];
  if (errors.length > 0 && reservations.length === 0) {
    const { message } = codeOfErrors(errors);
    if (saysNotFound(errors)) return { status: 'notFound' };
    throw new UnreadableAnswer(`the hotel could not read the reservation: ${message}`);
  }
  const ours = reservations.find((reservation) => list(reservation.UniqueID).some((id) => attr(id, 'ID') === reference));
  if (!ours) return { status: 'notFound' };
  return outcomeOfReservation(ours, list(asNode(root.Warnings)?.Warning), reference, undefined);
}

/** `OTA_CancelRS` → whether the reservation under our reference is cancelled. */
export function readCancelRS(xml: string, echoToken: string): CancelOutcome {
  const root = rootOf(parse(xml), 'OTA_CancelRS');
  if (!root) throw new UnreadableAnswer('the answer is not an OTA_CancelRS');
  checkEcho(root, echoToken);
  const errors = list(asNode(root.Errors)?.Error);
  if (errors.length > 0) {
    if (saysNotFound(errors)) return { status: 'notFound' };
    return { status: 'refused', message: codeOfErrors(errors).message };
  }
  if (root.Success === undefined) throw new UnreadableAnswer('OTA_CancelRS has neither Errors nor Success');
  const status = attr(root, 'Status');
  if (status !== undefined && !/^cancel(l?ed)?$/i.test(status))
    return { status: 'refused', message: `the hotel answered status "${status.slice(0, 40)}"` };
  return { status: 'cancelled' };
}
