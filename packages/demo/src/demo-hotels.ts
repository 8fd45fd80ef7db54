/**
 * The demo hotels as `PUT /v1/admin/hotels/{hotelId}` bodies: two sold through the demo OpenTravel
 * endpoint, one read from the demo booking page in Chromium. Every URL is on the demo's origin.
 */
export function demoHotels(origin: string) {
  const bookingPageUrl = (code: string) => `${origin}/booking/search.html?hotel=${code}`;
  return [
    {
      hotelId: 'demo-harbour',
      name: 'Harbour View Hotel',
      ibe: 'demo-ibe',
      address: 'Rua do Cais 12, 1200-001 Lisboa',
      countryCode: 'pt',
      guests: [1, 2],
      bookingPageUrl: bookingPageUrl('HARBOUR'),
      source: { kind: 'opentravel', endpointUrl: `${origin}/ota`, hotelCode: 'HARBOUR' },
    },
    {
      hotelId: 'demo-sakura',
      name: 'Sakura Garden Inn',
      ibe: 'demo-ibe',
      address: '1-2-3 Higashiyama, Kyoto 605-0000',
      countryCode: 'jp',
      guests: [2],
      bookingPageUrl: bookingPageUrl('SAKURA'),
      source: { kind: 'opentravel', endpointUrl: `${origin}/ota`, hotelCode: 'SAKURA' },
    },
    {
      hotelId: 'demo-riverside',
      name: 'Riverside Lodge',
      ibe: 'demo-ibe',
      address: '400 River Road, Portland, OR 97201',
      countryCode: 'us',
      guests: [2],
      bookingPageUrl: bookingPageUrl('RIVERSIDE'),
      source: { kind: 'booking-page', engine: 'demo-ibe' },
    },
  ];
}
