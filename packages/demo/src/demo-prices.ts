/**
 * The demo hotels' made-up prices: deterministic per (hotel, check-in, nights, guests), so a pull
 * and a push of the same search agree, weekends dearer, a second guest a quarter more.
 */
type DemoRoomType = { code: string; name: string; description: string; maxGuests: number; factor: number };
type DemoRatePlan = { code: string; name: string; refundableDays: number | null; breakfast: boolean; factor: number };
export type DemoProperty = {
  code: string;
  name: string;
  currency: string;
  /** Minor units of the currency (JPY 0, EUR 2): how amounts are written. */
  decimals: number;
  /** One night for one guest in the cheapest room, in minor units, before tax. */
  nightly: number;
  vatPercent: number;
  /** City tax per night and guest, minor units. */
  cityTax: number;
  rooms: DemoRoomType[];
  plans: DemoRatePlan[];
};

export type DemoQuote = {
  room: DemoRoomType;
  plan: DemoRatePlan;
  /** Stay total before tax, minor units. */
  beforeTax: number;
  vat: number;
  cityTax: number;
  /** Last day of free cancellation (yyyy-mm-dd), or null when not refundable (also once that day has passed). */
  cancelUntil: string | null;
};

const dayMs = 86_400_000;

function variation(seed: string): number {
  let hash = 0;
  for (const char of seed) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return (hash % 21) - 10; // -10 % … +10 %
}

/** Every room and rate of `property` for the stay; rooms too small for `guests` are left out. */
export function quoteStay(
  property: DemoProperty,
  checkIn: string,
  nights: number,
  guests: number,
  today = new Date().toISOString().slice(0, 10),
): DemoQuote[] {
  const start = Date.parse(`${checkIn}T00:00:00Z`);
  let stay = 0;
  for (let night = 0; night < nights; night += 1) {
    const date = new Date(start + night * dayMs);
    const weekend = date.getUTCDay() === 5 || date.getUTCDay() === 6;
    const day = date.toISOString().slice(0, 10);
    stay += Math.round(property.nightly * (weekend ? 1.2 : 1) * (1 + variation(`${property.code}:${day}`) / 100));
  }
  const guestFactor = 1 + 0.25 * (guests - 1);
  const quotes: DemoQuote[] = [];
  for (const room of property.rooms.filter((candidate) => candidate.maxGuests >= guests)) {
    for (const plan of property.plans) {
      const beforeTax = Math.round(stay * guestFactor * room.factor * plan.factor);
      const deadline = plan.refundableDays === null ? null : new Date(start - plan.refundableDays * dayMs).toISOString().slice(0, 10);
      const cancelUntil = deadline !== null && deadline >= today ? deadline : null;
      quotes.push({
        room,
        plan,
        beforeTax,
        vat: Math.round((beforeTax * property.vatPercent) / 100),
        cityTax: property.cityTax * nights * guests,
        cancelUntil,
      });
    }
  }
  return quotes;
}

/** Minor units written the way the currency is written: 12345 → "123.45" (2 decimals), "12345" (0). */
export function formatAmount(units: number, decimals: number): string {
  if (decimals === 0) return String(units);
  const scale = 10 ** decimals;
  return `${Math.floor(units / scale)}.${String(units % scale).padStart(decimals, '0')}`;
}
