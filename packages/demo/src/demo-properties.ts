import type { DemoProperty } from './demo-prices.ts';

const rooms = [
  { code: 'DBL', name: 'Double Room', description: 'Queen bed, courtyard view, 22 m²', maxGuests: 2, factor: 1 },
  { code: 'STE', name: 'Junior Suite', description: 'King bed and sofa, balcony, 38 m²', maxGuests: 2, factor: 1.6 },
  { code: 'SGL', name: 'Single Room', description: 'One bed, 14 m²', maxGuests: 1, factor: 0.8 },
];
const plans = [
  { code: 'FLEX', name: 'Flexible rate', refundableDays: 2, breakfast: false, factor: 1 },
  { code: 'BB', name: 'Bed and breakfast', refundableDays: 2, breakfast: true, factor: 1.12 },
  { code: 'SAVER', name: 'Saver, non-refundable', refundableDays: null, breakfast: false, factor: 0.88 },
];

/** The properties the demo's OpenTravel server and booking page sell (their hotel codes). */
export const demoProperties: Record<string, DemoProperty> = {
  HARBOUR: {
    code: 'HARBOUR',
    name: 'Harbour View Hotel',
    currency: 'EUR',
    decimals: 2,
    nightly: 12_900,
    vatPercent: 10,
    cityTax: 250,
    rooms,
    plans,
  },
  SAKURA: {
    code: 'SAKURA',
    name: 'Sakura Garden Inn',
    currency: 'JPY',
    decimals: 0,
    nightly: 18_000,
    vatPercent: 10,
    cityTax: 200,
    rooms: rooms.slice(0, 2),
    plans,
  },
  RIVERSIDE: {
    code: 'RIVERSIDE',
    name: 'Riverside Lodge',
    currency: 'USD',
    decimals: 2,
    nightly: 15_900,
    vatPercent: 8,
    cityTax: 300,
    rooms,
    plans: plans.slice(0, 2),
  },
};
