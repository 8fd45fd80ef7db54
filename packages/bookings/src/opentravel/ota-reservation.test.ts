import { describe, expect, it } from 'vitest';
import { buildCancelRQ, buildHotelResRQ, readCancelRS, readHotelResRS, readResRetrieveRS, splitRateId } from './ota-reservation.ts';

const source = { kind: 'opentravel' as const, endpointUrl: 'https://hotel.example/ota', hotelCode: 'H1' };
const rs = (inner: string, root = 'OTA_HotelResRS') =>
  `<${root} xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="e1">${inner}</${root}>`;
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
      rs(
        `<Success/><HotelReservations><HotelReservation ResStatus="PendingPaymentAuthentication"><TPA_Extensions><ThreeDSChallenge Version="2.2.0" AcsUrl="https://acs.example/c" Creq="eyJ9" ThreeDSSessionData="abc" WindowSize="02" ExpiresAt="2030-01-01T00:10:00Z"/></TPA_Extensions></HotelReservation></HotelReservations>`,
      ),
      'e1',
      'QB1',
      total,
    );
    expect(outcome).toEqual({
      status: 'challenge',
      challenge: {
        version: '2.2.0',
        acsUrl: 'https://acs.example/c',
        creq: 'eyJ9',
        threeDSSessionData: 'abc',
        windowSize: '02',
        expiresAt: '2030-01-01T00:10:00Z',
      },
    });
  });

  it('an Error is read by its code first: 450 with the words of a refusal is a refused payment, not a card to correct', () => {
    const outcome = readHotelResRS(
      rs('<Errors><Error Type="3" Code="450" ShortText="Unable to authorize – please enter alternate credit card"/></Errors>'),
      'e1',
      'QB1',
      total,
    );
    expect(outcome).toEqual({
      status: 'failed',
      code: 'PaymentRejected',
      message: '450 Unable to authorize – please enter alternate credit card',
    });
    expect(readHotelResRS(rs('<Errors><Error Type="3" Code="242" ShortText="Card declined"/></Errors>'), 'e1', 'QB1', total)).toMatchObject(
      { code: 'CardDetailsInvalid' },
    );
  });

  it('an answer to another request is not read', () => {
    expect(() => readHotelResRS(rs('<Success/>').replace('e1', 'e2'), 'e1', 'QB1', total)).toThrow(/EchoToken/);
  });
});

describe('OTA_ResRetrieveRS', () => {
  it('finds our reservation by our reference, or says there is none', () => {
    const found = `<Success/><ReservationsList><HotelReservation ResStatus="Committed"><UniqueID Type="14" ID="QB1"/><ResGlobalInfo><Total AmountAfterTax="198.00" CurrencyCode="USD"/><HotelReservationIDs><HotelReservationID ResID_Type="10" ResID_Value="H-9"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></ReservationsList>`;
    expect(readResRetrieveRS(rs(found, 'OTA_ResRetrieveRS'), 'e1', 'QB1')).toMatchObject({
      status: 'confirmed',
      confirmation: { reference: 'H-9' },
    });
    expect(readResRetrieveRS(rs(found, 'OTA_ResRetrieveRS'), 'e1', 'QB2')).toEqual({ status: 'notFound' });
    expect(readResRetrieveRS(rs('<Success/><ReservationsList/>', 'OTA_ResRetrieveRS'), 'e1', 'QB1')).toEqual({ status: 'notFound' });
    expect(() =>
      readResRetrieveRS(rs('<Errors><Error Code="448" ShortText="System error"/></Errors>', 'OTA_ResRetrieveRS'), 'e1', 'QB1'),
    ).toThrow(/could not read/);
  });
});

describe('OTA_CancelRQ', () => {
  it('names the reservation by our reference and the hotel by its code', () => {
    const xml = buildCancelRQ(source, 'QB1', 'e1');
    expect(xml).toContain('<OTA_CancelRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="e1" CancelType="Cancel">');
    expect(xml).toContain('<UniqueID Type="14" ID="QB1" ID_Context="Quarry"/>');
    expect(xml).toContain('<BasicPropertyInfo HotelCode="H1"/>');
  });

  it('reads cancelled, not found and refused answers, and refuses an answer to another request', () => {
    expect(readCancelRS(rs('<Success/><UniqueID Type="14" ID="QB1"/>', 'OTA_CancelRS'), 'e1')).toEqual({ status: 'cancelled' });
    expect(readCancelRS(rs('<Success/>', 'OTA_CancelRS').replace('EchoToken', 'Status="Cancelled" EchoToken'), 'e1')).toEqual({
      status: 'cancelled',
    });
    expect(
      readCancelRS(rs('<Errors><Error Type="3" Code="245" ShortText="Reservation not found"/></Errors>', 'OTA_CancelRS'), 'e1'),
    ).toEqual({ status: 'notFound' });
    expect(
      readCancelRS(rs('<Errors><Error Type="3" Code="450" ShortText="Non-refundable reservation"/></Errors>', 'OTA_CancelRS'), 'e1'),
    ).toEqual({ status: 'refused', message: '450 Non-refundable reservation' });
    expect(readCancelRS(rs('<Success/>', 'OTA_CancelRS').replace('EchoToken', 'Status="Pending" EchoToken'), 'e1')).toMatchObject({
      status: 'refused',
    });
    expect(() => readCancelRS(rs('<Success/>', 'OTA_CancelRS'), 'other')).toThrow(/EchoToken/);
    expect(() => readCancelRS(rs('<Success/>'), 'e1')).toThrow(/not an OTA_CancelRS/);
  });
});
