import { describe, expect, it } from 'vitest';
import { codeOfErrors, otaErrorCodes, otaErrorTypes, saysNotFound } from './ota-error-codes.ts';

// Words that would point elsewhere: the code must decide, not the words.
const misleading = 'Something odd happened';

describe('OpenTravel errors by the ERR code list', () => {
  it.each(Object.entries(otaErrorCodes))('ERR %s is its own outcome', (code, entry) => {
    expect(codeOfErrors([{ '@Type': '3', '@Code': code, '@ShortText': misleading }]).code).toBe(entry.code);
    expect(codeOfErrors([{ '@Type': '3', '@Code': code, '@ShortText': 'Price changed, card declined' }]).code).toBe(entry.code);
  });

  it('a code in the table wins over an earlier error without one, and over the words', () => {
    expect(
      codeOfErrors([
        { '@Code': '450', '@ShortText': 'Card declined' },
        { '@Code': '322', '@ShortText': 'No availability' },
      ]),
    ).toEqual({
      code: 'RoomNotAvailable',
      message: '450 Card declined; 322 No availability',
    });
  });

  it('ERR 87 is "Booking reference invalid", not a duplicate; its words decide', () => {
    expect(codeOfErrors([{ '@Code': '87', '@ShortText': misleading }]).code).toBe('GenericWebsiteError');
  });
});

describe('OpenTravel errors by the EWT type, when the code is not in the table', () => {
  it.each(Object.entries(otaErrorTypes))('EWT %s is its own outcome', (type, entry) => {
    expect(codeOfErrors([{ '@Type': type, '@Code': '450', '@ShortText': 'Card declined' }]).code).toBe(entry.code);
  });

  it('EWT 6 "Authorization" is the requestor\'s, never the card\'s', () => {
    expect(codeOfErrors([{ '@Type': '6', '@Code': '999', '@ShortText': 'Not authorized' }]).code).toBe('GenericWebsiteError');
  });
});

describe('the words, as a fallback', () => {
  const code = (shortText: string, otaCode = '450', type = '3') =>
    codeOfErrors([{ '@Type': type, '@Code': otaCode, '@ShortText': shortText }]).code;

  it('a refused payment, even when it asks for another card', () => {
    expect(code('Unable to authorize – please enter alternate credit card')).toBe('PaymentRejected');
    expect(code('Card declined by the issuer')).toBe('PaymentRejected');
    expect(code('Do not honour')).toBe('PaymentRejected');
  });

  it('the other outcomes by their words; unknown words are a website error', () => {
    expect(code('Price changed: the stay now costs 210.00')).toBe('PriceChangedAfterConsent');
    expect(code('Sold out')).toBe('RoomNotAvailable');
    expect(code('Booking reference not unique', '87')).toBe('DuplicateBooking');
    expect(code('Invalid card number or expiry date', '320')).toBe('CardDetailsInvalid');
    expect(code('Please try again later', '1', '1')).toBe('SystemUnavailable');
    expect(code('Something odd', '999')).toBe('GenericWebsiteError');
    expect(code('Something odd', 'constructor', 'toString')).toBe('GenericWebsiteError');
  });

  it('a read or cancel that found nothing: ERR 97, or words saying so', () => {
    expect(saysNotFound([{ '@Code': '97', '@ShortText': misleading }])).toBe(true);
    expect(saysNotFound([{ '@Code': '245', '@ShortText': 'Reservation not found' }])).toBe(true);
    expect(saysNotFound([{ '@Code': '448', '@ShortText': 'System error' }])).toBe(false);
  });
});
