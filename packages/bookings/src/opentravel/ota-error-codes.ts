import type { BookingErrorCode } from '@quarry/contracts';
import { attr, text, type OtaNode } from '@quarry/rates';

/**
 * OpenTravel error codes (code list ERR, the `Code` attribute of `Error`) that say on their own what
 * became of an order. Names as the OpenTravel code list gives them, read from published copies of
 * it: https://developer.concur.com/api-reference/direct-connects/hotel-service-4/v4.supported-error-codes.html
 * (hotel codes, "refer to official OTA code list"), https://tourisoft.atlassian.net/wiki/spaces/HOT/pages/42467350/Error+Codes+ERR
 * (the ERR list from 1) and https://app-smart-mgt-specifications-prd.azurewebsites.net/generic/code-lists/error-and-warning-code.
 * Codes that name no outcome (450 "Unable to process", 197 "Undetermined error", 320 "Invalid
 * value", 365 "Error - credit card") are not here: their words decide.
 */
export const otaErrorCodes: Readonly<Record<string, { name: string; code: BookingErrorCode }>> = {
  '9': { name: 'Requested service is fully booked', code: 'RoomNotAvailable' },
  '28': { name: 'No more accommodation available', code: 'RoomNotAvailable' },
  '104': { name: 'Accommodation - no availability', code: 'RoomNotAvailable' },
  '132': { name: 'Room/unit type - no availability', code: 'RoomNotAvailable' },
  '322': { name: 'No availability', code: 'RoomNotAvailable' },
  '427': { name: 'No rooms available for requested dates', code: 'RoomNotAvailable' },
  '438': { name: 'Requested rate not available', code: 'RoomNotAvailable' },
  '143': { name: 'Price incorrect for room/unit', code: 'PriceChangedAfterConsent' },
  '96': { name: 'Duplicated itinerary', code: 'DuplicateBooking' },
  '127': { name: 'Reservation already exists', code: 'DuplicateBooking' },
  '240': { name: 'Credit card has expired', code: 'CardDetailsInvalid' },
  '241': { name: 'Expiration date is invalid', code: 'CardDetailsInvalid' },
  '242': { name: 'Credit card number is invalid or missing', code: 'CardDetailsInvalid' },
  '35': { name: 'Credit card guarantee not accepted at property', code: 'PaymentRejected' },
  '163': { name: 'Payment type invalid', code: 'PaymentRejected' },
  '506': { name: 'Credit card not accepted at property', code: 'PaymentRejected' },
  '91': { name: 'System busy please try later', code: 'SystemUnavailable' },
  '92': { name: 'Booking temporarily unavailable', code: 'SystemUnavailable' },
  '187': { name: 'System currently unavailable', code: 'SystemUnavailable' },
  '448': { name: 'System error', code: 'SystemUnavailable' },
  '321': { name: 'Required field missing', code: 'GenericWebsiteError' },
  '392': { name: 'Invalid hotel code', code: 'GenericWebsiteError' },
  '400': { name: 'Invalid property code', code: 'GenericWebsiteError' },
};

/**
 * OpenTravel error types (code list EWT, the `Type` attribute), for an error whose code is not in
 * the table: those that are about our request or our credentials with the hotel, not the stay or
 * the card (EWT 4 "Authentication" and 6 "Authorization" are the requestor's, never the card's).
 * Source: https://developer.rategain.com/rg-bridge-reservation-retrieval-pull/code-lists and the
 * EWT list (1 Unknown, 2 No implementation, 3 Biz rule, 4 Authentication, 5 Authentication timeout,
 * 6 Authorization, 7 Protocol violation, 8 Transaction model, 9 Authentication model, 10 Required
 * field missing, 11 Advisory, 12 Processing exception, 13 Application error). Types 1, 3 and 11
 * say nothing of the outcome: the words decide.
 */
export const otaErrorTypes: Readonly<Record<string, { name: string; code: BookingErrorCode }>> = {
  '2': { name: 'No implementation', code: 'GenericWebsiteError' },
  '4': { name: 'Authentication', code: 'GenericWebsiteError' },
  '5': { name: 'Authentication timeout', code: 'SystemUnavailable' },
  '6': { name: 'Authorization', code: 'GenericWebsiteError' },
  '7': { name: 'Protocol violation', code: 'GenericWebsiteError' },
  '8': { name: 'Transaction model', code: 'GenericWebsiteError' },
  '9': { name: 'Authentication model', code: 'GenericWebsiteError' },
  '10': { name: 'Required field missing', code: 'GenericWebsiteError' },
  '12': { name: 'Processing exception', code: 'SystemUnavailable' },
  '13': { name: 'Application error', code: 'SystemUnavailable' },
};

const entryOf = <T>(table: Readonly<Record<string, T>>, key: string | undefined): T | undefined =>
  key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;

/** The fallback: an error's words, for hotels that send a code of their own or one that names no outcome. */
function codeOfWords(words: string): BookingErrorCode {
  if (/price|rate (has )?changed|amount mismatch/.test(words)) return 'PriceChangedAfterConsent';
  if (/no availability|sold out|fully booked|not available/.test(words)) return 'RoomNotAvailable';
  if (/duplicate|already exists|not unique/.test(words)) return 'DuplicateBooking';
  // Before the card's details: "unable to authorize, please enter an alternate card" is a refusal.
  if (/declin|refused|rejected|insufficient funds|do not honou?r|authori[sz]|alternate (credit )?card|another card/.test(words))
    return 'PaymentRejected';
  if (/card|cvv|cvc|security code|expir/.test(words)) return 'CardDetailsInvalid';
  if (/unavailable|system error|try again/.test(words)) return 'SystemUnavailable';
  return 'GenericWebsiteError';
}

/**
 * OpenTravel errors of a reservation → our code: the first error whose code is in the ERR table,
 * else the first whose type is in the EWT table, else the words of them all.
 */
/** ERR 97 "Booking reference not found", or words saying so: a read or a cancel found no reservation. */
export function saysNotFound(errors: OtaNode[]): boolean {
  if (errors.some((error) => attr(error, 'Code') === '97')) return true;
  return /not found|no reservation|unknown reservation|does not exist/i.test(codeOfErrors(errors).message);
}

export function codeOfErrors(errors: OtaNode[]): { code: BookingErrorCode; message: string } {
  const message = errors.map((error) => `${attr(error, 'Code') ?? '?'} ${attr(error, 'ShortText') ?? text(error) ?? ''}`.trim()).join('; ');
  const byCode = errors.map((error) => entryOf(otaErrorCodes, attr(error, 'Code'))).find(Boolean);
  const byType = errors.map((error) => entryOf(otaErrorTypes, attr(error, 'Type'))).find(Boolean);
  const code = byCode?.code ?? byType?.code ?? codeOfWords(message.toLowerCase());
  return { code, message: message.slice(0, 500) };
}
