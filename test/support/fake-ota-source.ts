import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type FakeHotel = {
  /** Stay total before tax, as the source writes it (e.g. "180.00"); the tax is a fixed 10 %. */
  price?: string | (() => string);
  currency?: string;
  /** How long the answer takes; a function picks it per request by the check-in date asked. */
  delayMs?: number | ((checkIn: string) => number);
  /**
   * `wrong-stay` answers for the day after the one asked; `stale-echo` answers with the EchoToken of
   * the first request it saw for this hotel (an earlier request's answer), both with valid rooms.
   */
  behaviour?: 'rooms' | 'no-availability' | 'unknown-hotel' | 'invalid' | 'duplicate-rates' | 'down' | 'wrong-stay' | 'stale-echo';
  /** Pads the room description so one result weighs about this many bytes (push size tests). */
  padBytes?: number;
};

/**
 * A real HTTP OpenTravel endpoint: answers OTA_HotelAvailRQ per HotelCode from `hotels`, and counts
 * requests per hotel code, so tests can tell a stored answer from a live fetch.
 */
export type FakeOtaSource = { url: string; hotels: Map<string, FakeHotel>; requests: Map<string, number>; close: () => Promise<void> };

/** What the request asked, echoed back the way an OpenTravel source states it. */
type Asked = { echoToken: string; start: string; end: string; guests: string };

function askedIn(body: string): Asked {
  const value = (pattern: RegExp) => pattern.exec(body)?.[1] ?? '';
  return {
    echoToken: value(/EchoToken="([^"]*)"/),
    start: value(/StayDateRange Start="([^"]*)"/),
    end: value(/StayDateRange[^>]* End="([^"]*)"/),
    guests: value(/GuestCount [^>]*Count="(\d+)"/),
  };
}

const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

function roomStays(code: string, hotel: FakeHotel & { price?: string }, asked: Asked): string {
  const currency = hotel.currency ?? 'USD';
  const before = hotel.price ?? '180.00';
  const [whole = '0', fraction = ''] = before.split('.');
  const scale = 10 ** fraction.length;
  const beforeUnits = Number(whole) * scale + Number(fraction || '0');
  const taxUnits = Math.floor(beforeUnits / 10);
  const format = (units: number) =>
    fraction.length === 0 ? String(units) : `${Math.floor(units / scale)}.${String(units % scale).padStart(fraction.length, '0')}`;
  const roomRate = `<RoomRate RoomTypeCode="STD" RatePlanCode="FLEX"><Total AmountBeforeTax="${before}" AmountAfterTax="${format(beforeUnits + taxUnits)}" CurrencyCode="${currency}">
<Taxes><Tax Code="19" Amount="${format(taxUnits)}" CurrencyCode="${currency}"><TaxDescription><Text>VAT</Text></TaxDescription></Tax></Taxes></Total></RoomRate>`;
  const pad = hotel.padBytes ? 'x'.repeat(hotel.padBytes) : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="6.000" EchoToken="${asked.echoToken}"><Success/><RoomStays><RoomStay>
<RoomTypes><RoomType RoomTypeCode="STD"><RoomDescription Name="Standard ${code}"><Text>Room ${pad}</Text></RoomDescription><Occupancy MaxOccupancy="2"/></RoomType></RoomTypes>
<RatePlans><RatePlan RatePlanCode="FLEX" RatePlanName="Flexible"><CancelPenalties><CancelPenalty NonRefundable="true"/></CancelPenalties></RatePlan></RatePlans>
<RoomRates>${roomRate.repeat(hotel.behaviour === 'duplicate-rates' ? 2 : 1)}</RoomRates>
<GuestCounts><GuestCount AgeQualifyingCode="10" Count="${asked.guests}"/></GuestCounts><TimeSpan Start="${asked.start}" End="${asked.end}"/><BasicPropertyInfo HotelCode="${code}"/>
</RoomStay></RoomStays></OTA_HotelAvailRS>`;
}

export async function startFakeOtaSource(): Promise<FakeOtaSource> {
  const hotels = new Map<string, FakeHotel>();
  const requests = new Map<string, number>();
  const firstEchoToken = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const code = /HotelCode="([^"]+)"/.exec(body)?.[1] ?? '';
      requests.set(code, (requests.get(code) ?? 0) + 1);
      const asked = askedIn(body);
      if (!firstEchoToken.has(code)) firstEchoToken.set(code, asked.echoToken);
      const hotel = hotels.get(code) ?? { behaviour: 'unknown-hotel' };
      const answer = () => {
        const ota = (inner: string) =>
          `<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="${asked.echoToken}">${inner}</OTA_HotelAvailRS>`;
        const price = typeof hotel.price === 'function' ? hotel.price() : hotel.price;
        switch (hotel.behaviour ?? 'rooms') {
          case 'down':
            return response.writeHead(503).end('down');
          case 'no-availability':
            return response.end(ota('<Errors><Error Type="3" Code="322" ShortText="No availability"/></Errors>'));
          case 'unknown-hotel':
            return response.end(ota('<Errors><Error Type="3" Code="392" ShortText="Invalid hotel code"/></Errors>'));
          case 'invalid':
            // 3 decimals in USD: a source bug that must never reach a client.
            return response.end(roomStays(code, { ...hotel, price: '180.005' }, asked));
          case 'wrong-stay':
            return response.end(roomStays(code, { ...hotel, price }, { ...asked, start: nextDay(asked.start), end: nextDay(asked.end) }));
          case 'stale-echo':
            return response.end(roomStays(code, { ...hotel, price }, { ...asked, echoToken: firstEchoToken.get(code) ?? '' }));
          case 'rooms':
          default:
            return response.end(roomStays(code, { ...hotel, price }, asked));
        }
      };
      const delayMs = typeof hotel.delayMs === 'function' ? hotel.delayMs(asked.start) : hotel.delayMs;
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ota`,
    hotels,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
