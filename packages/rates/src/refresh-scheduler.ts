import { createHash } from 'node:crypto';
import type { Queryable } from '@quarry/db';
import { listAllHotelRows } from './hotels.queries.ts';
import { findUndeliveredSubscriptions } from './push.queries.ts';
import { fetchedAtBySearch, searchKeyString, type SearchKey } from './rate-results.queries.ts';
import type { EnqueuePush } from './refresh-search.ts';

/** How often a search is refreshed, by how far ahead its check-in is: near dates more often. */
export type RefreshTier = { untilDaysAhead: number; everyMs: number };

export type SchedulePorts = {
  db: Queryable;
  /** Enqueues refresh jobs; `jobId` dedupes a search within one refresh period. */
  enqueueRefreshes: (items: Array<{ key: SearchKey; jobId: string }>) => Promise<unknown>;
  enqueuePush: EnqueuePush;
  now: () => Date;
  horizonDays: number;
  nights: number[];
  tiers: RefreshTier[];
};

const DAY_MS = 86_400_000;
const BATCH = 1_000;

function tierFor(tiers: RefreshTier[], daysAhead: number): RefreshTier {
  const sorted = [...tiers].sort((a, b) => a.untilDaysAhead - b.untilDaysAhead);
  return sorted.find((tier) => daysAhead < tier.untilDaysAhead) ?? (sorted.at(-1) as RefreshTier);
}

/**
 * One scheduler tick (a repeating job): for every hotel, every check-in date from today to the
 * horizon, every configured length of stay and every guest count the hotel is collected for,
 * enqueues a refresh when the stored result is older than its tier's period. Job ids are derived
 * from the search and the period, so overlapping ticks (several processes) enqueue each once.
 */
export async function scheduleRefreshes(ports: SchedulePorts): Promise<{ enqueued: number; considered: number }> {
  const now = ports.now();
  const today = now.toISOString().slice(0, 10);
  const todayMs = Date.parse(`${today}T00:00:00Z`);
  const hotels = await listAllHotelRows(ports.db);
  let enqueued = 0;
  let considered = 0;
  let batch: Array<{ key: SearchKey; jobId: string }> = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await ports.enqueueRefreshes(batch);
    enqueued += batch.length;
    batch = [];
  };
  for (let start = 0; start < hotels.length; start += 100) {
    const group = hotels.slice(start, start + 100);
    const fetched = await fetchedAtBySearch(
      ports.db,
      group.map((hotel) => hotel.hotelId),
      today,
    );
    for (const hotel of group) {
      for (let offset = 0; offset < ports.horizonDays; offset += 1) {
        const checkIn = new Date(todayMs + offset * DAY_MS).toISOString().slice(0, 10);
        const tier = tierFor(ports.tiers, offset);
        for (const nights of ports.nights) {
          for (const guests of hotel.guests) {
            considered += 1;
            const key = { hotelId: hotel.hotelId, checkIn, nights, guests };
            const id = searchKeyString(key);
            const last = fetched.get(id);
            if (last && now.getTime() - last.getTime() < tier.everyMs) continue;
            const period = Math.floor(now.getTime() / tier.everyMs);
            batch.push({ key, jobId: `refresh_${createHash('sha1').update(`${id}|${period}`).digest('hex')}` });
            if (batch.length >= BATCH) await flush();
          }
        }
      }
    }
  }
  await flush();
  for (const subscription of await findUndeliveredSubscriptions(ports.db, 1000)) {
    await ports.enqueuePush(subscription.subscriptionId, `v${subscription.version}-sweep${Math.floor(now.getTime() / 60_000)}`);
  }
  return { enqueued, considered };
}
