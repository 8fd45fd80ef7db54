import { XMLParser } from 'fast-xml-parser';
import { formatAmount, quoteStay } from './demo-prices.ts';
import { demoProperties } from './demo-properties.ts';

/**
 * The demo's OpenTravel endpoint: `OTA_HotelAvailRQ` in, `OTA_HotelAvailRS` out, echoing what a
 * real endpoint echoes (EchoToken, the hotel code, the stay and the guest count) so a client can
 * check that the answer belongs to its question.
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseAttributeValue: false,
  processEntities: false,
});

type AvailRequest = { echoToken: string; hotelCode: string; start: string; end: string; guests: number };

const escapeXml = (value: string) => value.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/** Reads the request; returns the field that is missing or wrong instead when it cannot. */
function parseAvailRequest(xml: string): AvailRequest | { problem: string } {
  let document: Record<string, unknown>;
  try {
    document = parser.parse(xml) as Record<string, unknown>;
  } catch {
    return { problem: 'request is not XML' };
  }
  const rq = document.OTA_HotelAvailRQ as Record<string, unknown> | undefined;
  if (!rq) return { problem: 'request is not an OTA_HotelAvailRQ' };
  const segment = (rq.AvailRequestSegments as Record<string, Record<string, Record<string, unknown>>> | undefined)?.AvailRequestSegment;
  const criterion = (segment?.HotelSearchCriteria as Record<string, Record<string, Record<string, string>>> | undefined)?.Criterion;
  const hotelCode = criterion?.HotelRef?.['@HotelCode'];
  const range = segment?.StayDateRange as Record<string, string> | undefined;
  const count = (segment?.RoomStayCandidates as Record<string, Record<string, Record<string, Record<string, string>>>> | undefined)
    ?.RoomStayCandidate?.GuestCounts?.GuestCount?.['@Count'];
  if (!hotelCode) return { problem: 'HotelRef/@HotelCode is missing' };
  if (!range?.['@Start'] || !isoDate.test(range['@Start']) || !range['@End'] || !isoDate.test(range['@End']))
    return { problem: 'StayDateRange/@Start and @End must be dates' };
  if (!count || !/^\d+$/.test(count)) return { problem: 'GuestCount/@Count must be a number' };
  return {
    echoToken: typeof rq['@EchoToken'] === 'string' ? rq['@EchoToken'] : '',
    hotelCode,
    start: range['@Start'],
    end: range['@End'],
    guests: Number(count),
  };
}

const envelope = (request: { echoToken: string }, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="6.000" EchoToken="${escapeXml(request.echoToken)}" TimeStamp="${new Date().toISOString()}">${inner}</OTA_HotelAvailRS>`;

/** The answer to one request (always HTTP 200: OpenTravel reports business errors in the body). */
export function answerAvailRequest(xml: string): string {
  const request = parseAvailRequest(xml);
  if ('problem' in request)
    return envelope({ echoToken: '' }, `<Errors><Error Type="10" Code="321" ShortText="${escapeXml(request.problem)}"/></Errors>`);
  const property = demoProperties[request.hotelCode];
  if (!property) return envelope(request, '<Errors><Error Type="3" Code="392" ShortText="Invalid hotel code"/></Errors>');
  const nights = Math.round((Date.parse(request.end) - Date.parse(request.start)) / 86_400_000);
  if (nights < 1 || nights > 30)
    return envelope(request, '<Errors><Error Type="10" Code="321" ShortText="StayDateRange must be 1 to 30 nights"/></Errors>');
  const quotes = quoteStay(property, request.start, nights, request.guests);
  if (quotes.length === 0) return envelope(request, '<Errors><Error Type="3" Code="322" ShortText="No availability"/></Errors>');
  const amount = (units: number) => formatAmount(units, property.decimals);
  const roomTypes = [...new Map(quotes.map((quote) => [quote.room.code, quote.room])).values()]
    .map(
      (room) =>
        `<RoomType RoomTypeCode="${room.code}" NonSmoking="true"><RoomDescription Name="${escapeXml(room.name)}"><Text>${escapeXml(room.description)}</Text></RoomDescription><Occupancy MaxOccupancy="${room.maxGuests}"/></RoomType>`,
    )
    .join('');
  const ratePlans = [...new Map(quotes.map((quote) => [quote.plan.code, quote])).values()]
    .map(({ plan, cancelUntil }) => {
      const penalty =
        cancelUntil === null
          ? '<CancelPenalty NonRefundable="true"/>'
          : `<CancelPenalty><Deadline AbsoluteDeadline="${cancelUntil}T18:00:00"/></CancelPenalty>`;
      return `<RatePlan RatePlanCode="${plan.code}" RatePlanName="${escapeXml(plan.name)}"><CancelPenalties>${penalty}</CancelPenalties><MealsIncluded MealPlanCodes="${plan.breakfast ? '19' : '14'}"/></RatePlan>`;
    })
    .join('');
  const roomRates = quotes
    .map((quote) => {
      const taxes = `<Tax Code="19" Amount="${amount(quote.vat)}" CurrencyCode="${property.currency}"><TaxDescription><Text>VAT</Text></TaxDescription></Tax><Tax Code="3" Amount="${amount(quote.cityTax)}" CurrencyCode="${property.currency}"><TaxDescription><Text>City tax</Text></TaxDescription></Tax>`;
      return `<RoomRate RoomTypeCode="${quote.room.code}" RatePlanCode="${quote.plan.code}"><Total AmountBeforeTax="${amount(quote.beforeTax)}" AmountAfterTax="${amount(quote.beforeTax + quote.vat + quote.cityTax)}" CurrencyCode="${property.currency}"><Taxes>${taxes}</Taxes></Total></RoomRate>`;
    })
    .join('');
  return envelope(
    request,
    `<Success/><RoomStays><RoomStay><RoomTypes>${roomTypes}</RoomTypes><RatePlans>${ratePlans}</RatePlans><RoomRates>${roomRates}</RoomRates>` +
      `<GuestCounts><GuestCount AgeQualifyingCode="10" Count="${request.guests}"/></GuestCounts><TimeSpan Start="${request.start}" End="${request.end}"/>` +
      `<BasicPropertyInfo HotelCode="${escapeXml(property.code)}" HotelName="${escapeXml(property.name)}"/></RoomStay></RoomStays>`,
  );
}
