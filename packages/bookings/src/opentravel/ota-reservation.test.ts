import { describe, expect, it } from 'vitest';
import { buildHotelResRQ, codeOfErrors, readHotelResRS, readResRetrieveRS, splitRateId } from './ota-reservation.ts';

const source = { kind: 'opentravel' as const, endpointUrl: 'https://hotel.example/ota', hotelCode: 'H1' };
const rs = (inner: string, root = 'OTA_HotelResRS') => `<${root} xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="e1">${inner}</${root}>`;
const total = { currencyCode: 'usd' as const, value: 19_800 };

describe('OTA_HotelResRQ', () => {
  it('carries every guest, the card, the total with its decimals and our reference, escaped', () => {
    const xml = buildHotelResRQ(
      source,
      {
        reference: 'QB1',
        stay: { checkIn: '2030-01-10', nights: 2, guests: 2 },
        roomId: 'STD',
        rateId: 'STD:FLEX',
        total,
        mainGuest: { firstName: 'Ada', lastName: 'O"Brien' },
        otherGuests: [{ firstName: 'Charles', lastName: 'Babbage' }],
        contact: { email: 'ada@example.com', phone: '+44 1' },
        card: { pan: '4111111111111111', expiryMonth: 3, expiryYear: 2031, name: 'Ada <Lovelace>' },
      },
      'e1',
    );
    expect(xml).toContain('<UniqueID Type="14" ID="QB1" ID_Context="Quarry"/>');
    expect(xml).toContain('<Total AmountAfterTax="198.00" CurrencyCode="USD" DecimalPlaces="2"/>');
    expect(xml).toContain('<TimeSpan Start="2030-01-10" End="2030-01-12"/>');
    expect(xml).toContain('<Surname>O&#34;Brien</Surname>');
    expect(xml).toContain('<GivenName>Charles</GivenName>');
    expect(xml).toContain('CardCode="VI" CardNumber="4111111111111111" ExpireDate="0331"');
    expect(xml).toContain('<CardHolderName>Ada &#60;Lovelace&#62;</CardHolderName>');
    expect(xml).not.toContain('SeriesCode');
  });

  it('names a rate by its plan code', () => {
    expect(splitRateId('STD', 'STD:FLEX')).toEqual(['STD', 'FLEX']);
    expect(splitRateId('STD', 'FLEX')).toEqual(['STD', 'FLEX']);
  });
});

describe('OTA_HotelResRS', () => {
  it('a committed reservation: the hotel confirmation number (not our reference), its total and warnings', () => {
    const outcome = readHotelResRS(
      rs(`<Success/><Warnings><Warning ShortText="Late check-in"/></Warnings><HotelReservations><HotelReservation ResStatus="Committed"><UniqueID Type="14" ID="QB1"/>
        <ResGlobalInfo><Total AmountAfterTax="198.00" CurrencyCode="USD"/><HotelReservationIDs><HotelReservationID ResID_Type="14" ResID_Value="QB1"/><HotelReservationID ResID_Type="10" ResID_Value="H-77"/></HotelReservationIDs></ResGlobalInfo>
        </HotelReservation></HotelReservations>`),
      'e1',
      'QB1',
      total,
    );
    expect(outcome).toEqual({ status: 'confirmed', confirmation: { reference: 'H-77', message: 'Late check-in', price: total } });
  });

  it('a reservation pending 3-D Secure carries the challenge', () => {
    const outcome = readHotelResRS(
      rs(`<Success/><HotelReservations><HotelReservation ResStatus="PendingPaymentAuthentication"><TPA_Extensions><ThreeDSChallenge Version="2.2.0" AcsUrl="https://acs.example/c" Creq="eyJ9" ThreeDSSessionData="abc" WindowSize="02" ExpiresAt="2030-01-01T00:10:00Z"/></TPA_Extensions></HotelReservation></HotelReservations>`),
      'e1',
      'QB1',
      total,
    );
    expect(outcome).toEqual({ status: 'challenge', challenge: { version: '2.2.0', acsUrl: 'https://acs.example/c', creq: 'eyJ9', threeDSSessionData: 'abc', windowSize: '02', expiresAt: '2030-01-01T00:10:00Z' } });
  });

  it('errors map to the booking codes', () => {
    const code = (shortText: string, otaCode = '450') => codeOfErrors([{ '@Code': otaCode, '@ShortText': shortText }]).code;
    expect(code('No availability', '322')).toBe('RoomNotAvailable');
    expect(code('Price changed: the stay now costs 210.00')).toBe('PriceChangedAfterConsent');
    expect(code('Card declined by the issuer')).toBe('PaymentRejected');
    expect(code('Invalid card number or expiry date', '320')).toBe('CardDetailsInvalid');
    expect(code('Booking reference not unique', '87')).toBe('DuplicateBooking');
    expect(code('System currently unavailable', '187')).toBe('SystemUnavailable');
    expect(code('Something odd', '999')).toBe('GenericWebsiteError');
  });

  it('an answer to another request is not read', () => {
    expect(() => readHotelResRS(rs('<Success/>').replace('e1', 'e2'), 'e1', 'QB1', total)).toThrow(/EchoToken/);
  });
});

describe('OTA_ResRetrieveRS', () => {
  it('finds our reservation by our reference, or says there is none', () => {
    const found = `<Success/><ReservationsList><HotelReservation ResStatus="Committed"><UniqueID Type="14" ID="QB1"/><ResGlobalInfo><Total AmountAfterTax="198.00" CurrencyCode="USD"/><HotelReservationIDs><HotelReservationID ResID_Type="10" ResID_Value="H-9"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></ReservationsList>`;
    expect(readResRetrieveRS(rs(found, 'OTA_ResRetrieveRS'), 'e1', 'QB1')).toMatchObject({ status: 'confirmed', confirmation: { reference: 'H-9' } });
    expect(readResRetrieveRS(rs(found, 'OTA_ResRetrieveRS'), 'e1', 'QB2')).toEqual({ status: 'notFound' });
    expect(readResRetrieveRS(rs('<Success/><ReservationsList/>', 'OTA_ResRetrieveRS'), 'e1', 'QB1')).toEqual({ status: 'notFound' });
    expect(() => readResRetrieveRS(rs('<Errors><Error Code="448" ShortText="System error"/></Errors>', 'OTA_ResRetrieveRS'), 'e1', 'QB1')).toThrow(/could not read/);
  });
});
