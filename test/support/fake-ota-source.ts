import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type FakeHotel = {
  /** Stay total before tax, as the source writes it (e.g. "180.00"); the tax is a fixed 10 %. */
  price?: string | (() => string);
  currency?: string;
  delayMs?: number;
  behaviour?: 'rooms' | 'no-availability' | 'unknown-hotel' | 'invalid' | 'duplicate-rates' | 'down';
  /** Pads the room description so one result weighs about this many bytes (push size tests). */
  padBytes?: number;
};

/**
 * A real HTTP OpenTravel endpoint: answers OTA_HotelAvailRQ per HotelCode from `hotels`, and counts
 * requests per hotel code, so tests can tell a stored answer from a live fetch.
 */
export type FakeOtaSource = { url: string; hotels: Map<string, FakeHotel>; requests: Map<string, number>; close: () => Promise<void> };

function roomStays(code: string, hotel: FakeHotel & { price?: string }): string {
  const currency = hotel.currency ?? 'USD';
  const before = hotel.price ?? '180.00';
  const [whole = '0', fraction = ''] = before.split('.');
  const scale = 10 ** fraction.length;
  const beforeUnits = Number(whole) * scale + Number(fraction || '0');
  const taxUnits = Math.floor(beforeUnits / 10);
  const format = (units: number) => (fraction.length === 0 ? String(units) : `${Math.floor(units / scale)}.${String(units % scale).padStart(fraction.length, '0')}`);
  const roomRate = `<RoomRate RoomTypeCode="STD" RatePlanCode="FLEX"><Total AmountBeforeTax="${before}" AmountAfterTax="${format(beforeUnits + taxUnits)}" CurrencyCode="${currency}">
<Taxes><Tax Code="19" Amount="${format(taxUnits)}" CurrencyCode="${currency}"><TaxDescription><Text>VAT</Text></TaxDescription></Tax></Taxes></Total></RoomRate>`;
  const pad = hotel.padBytes ? 'x'.repeat(hotel.padBytes) : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="6.000"><Success/><RoomStays><RoomStay>
<RoomTypes><RoomType RoomTypeCode="STD"><RoomDescription Name="Standard ${code}"><Text>Room ${pad}</Text></RoomDescription><Occupancy MaxOccupancy="2"/></RoomType></RoomTypes>
<RatePlans><RatePlan RatePlanCode="FLEX" RatePlanName="Flexible"><CancelPenalties><CancelPenalty NonRefundable="true"/></CancelPenalties></RatePlan></RatePlans>
<RoomRates>${roomRate.repeat(hotel.behaviour === 'duplicate-rates' ? 2 : 1)}</RoomRates>
</RoomStay></RoomStays></OTA_HotelAvailRS>`;
}

export async function startFakeOtaSource(): Promise<FakeOtaSource> {
  const hotels = new Map<string, FakeHotel>();
  const requests = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const code = /HotelCode="([^"]+)"/.exec(body)?.[1] ?? '';
      requests.set(code, (requests.get(code) ?? 0) + 1);
      const hotel = hotels.get(code) ?? { behaviour: 'unknown-hotel' };
      const answer = () => {
        const ota = (inner: string) => `<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05">${inner}</OTA_HotelAvailRS>`;
        switch (hotel.behaviour ?? 'rooms') {
          case 'down':
            return response.writeHead(503).end('down');
          case 'no-availability':
            return response.end(ota('<Errors><Error Type="3" Code="322" ShortText="No availability"/></Errors>'));
          case 'unknown-hotel':
            return response.end(ota('<Errors><Error Type="3" Code="392" ShortText="Invalid hotel code"/></Errors>'));
          case 'invalid':
            // 3 decimals in USD: a source bug that must never reach a client.
            return response.end(roomStays(code, { ...hotel, price: '180.005' }));
          case 'rooms':
          default:
            return response.end(roomStays(code, { ...hotel, price: typeof hotel.price === 'function' ? hotel.price() : hotel.price }));
        }
      };
      if (hotel.delayMs) setTimeout(answer, hotel.delayMs);
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
