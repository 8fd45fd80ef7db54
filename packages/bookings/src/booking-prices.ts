import { randomBytes } from 'node:crypto';
import type { AvailableRooms, BookingPrice, Rate, Room } from '@quarry/contracts';

/** A rate's price as a booking shows it: its parts and their sum (in the currency's smallest unit). */
export function priceOf(rate: Rate): BookingPrice {
  const fees = rate.fees ?? [];
  const parts = [rate.baseRate, ...rate.taxes.map((tax) => tax.price), ...fees.map((fee) => fee.price)];
  if (parts.some((part) => part.currencyCode !== rate.baseRate.currencyCode)) throw new Error(`rate ${rate.id} mixes currencies`);
  return {
    baseRate: rate.baseRate,
    taxes: rate.taxes,
    fees,
    total: { currencyCode: rate.baseRate.currencyCode, value: parts.reduce((sum, part) => sum + part.value, 0) },
  };
}

export const samePrice = (a: BookingPrice, b: BookingPrice): boolean =>
  a.total.currencyCode === b.total.currencyCode && a.total.value === b.total.value;

export function findRate(rooms: Room[], roomId: string, rateId: string): Rate | undefined {
  return rooms.find((room) => room.id === roomId)?.rates.find((rate) => rate.id === rateId);
}

/** Every room and rate the hotel offers now, each price with an id the client confirms it by. */
export function availableRoomsOf(rooms: Room[]): AvailableRooms {
  return rooms.map((room) => ({
    roomId: room.id,
    name: room.name,
    rates: room.rates.map((rate) => ({
      rateId: rate.id,
      name: rate.name,
      priceId: `pr_${randomBytes(9).toString('base64url')}`,
      price: priceOf(rate),
    })),
  }));
}

/**
 * Key order and all: a consent is an exact copy of the final price. JSON from Postgres' jsonb has
 * its own key order, so both sides are compared in a canonical form.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
