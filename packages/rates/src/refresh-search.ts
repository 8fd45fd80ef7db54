import type { Room } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { findHotelRow } from './hotels.queries.ts';
import { bumpSubscriptionsOfHotel } from './push.queries.ts';
import { recordSourceFailure, searchKeyString, storeResult, type SearchKey } from './rate-results.queries.ts';
import { validateResult } from './result-validation.ts';
import type { SourceFailureKind } from './sources/rate-source.ts';
import type { SearchPriority, SourceRegistry } from './sources/source-registry.ts';

/** Enqueues a push job; `dedupeKey` (e.g. `v12`) makes its job id, so the same trigger enqueues once. */
export type EnqueuePush = (subscriptionId: string, dedupeKey: string) => Promise<unknown>;

export type RefreshPorts = {
  db: Queryable;
  sources: SourceRegistry;
  enqueuePush: EnqueuePush;
  now: () => Date;
  /** How long a stored result counts as fresh (its `expiresAt` = `fetchedAt` + this). */
  freshnessMs: number;
  onFailure?: (key: SearchKey, failure: { kind: SourceFailureKind; reason: string }) => void;
};

export type RefreshOutcome =
  | { status: 'stored'; body: string; changed: boolean }
  | { status: 'no-coverage'; reason: string }
  | { status: 'failed'; kind: SourceFailureKind; reason: string };

// Pull and the scheduler may ask for the same search at once: one fetch serves both, and it is
// urgent as soon as a pull waits for it.
const inFlight = new Map<string, { work: Promise<RefreshOutcome>; urgency: { live: boolean } }>();

/**
 * Fetches one search from the hotel's source, validates it against the strict schema, stores it,
 * and when its content changed moves every subscription covering the hotel to a new state.
 * `live`: a client waits for it now (a pull), so it goes before scheduled searches of the same
 * source; a scheduled search a pull joins becomes live too.
 */
export function refreshSearch(
  ports: RefreshPorts,
  key: SearchKey,
  signal: AbortSignal,
  options: { live?: boolean } = {},
): Promise<RefreshOutcome> {
  const id = searchKeyString(key);
  const running = inFlight.get(id);
  if (running) {
    if (options.live) running.urgency.live = true;
    return running.work;
  }
  const urgency = { live: options.live === true };
  const work = runRefresh(ports, key, signal, { urgent: () => urgency.live }).finally(() => inFlight.delete(id));
  inFlight.set(id, { work, urgency });
  return work;
}

const removed: RefreshOutcome = { status: 'no-coverage', reason: 'hotel was removed from the registry' };

/**
 * A hotel removed while its search was running (waiting for the source's turn, or fetching) takes
 * its results and failures with it (foreign keys): what the search found has nowhere to go and is
 * dropped. The job then ends as quietly as one that starts after the removal, not as a failure.
 */
async function hotelGone(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '23503') return true; // foreign_key_violation
    throw error;
  }
}

async function runRefresh(ports: RefreshPorts, key: SearchKey, signal: AbortSignal, priority: SearchPriority): Promise<RefreshOutcome> {
  const hotel = await findHotelRow(ports.db, key.hotelId);
  if (!hotel) return { status: 'no-coverage', reason: 'hotel not in the registry' };
  if (!hotel.guests.includes(key.guests)) return { status: 'no-coverage', reason: `rates are not collected for ${key.guests} guests` };
  const fetchedAt = ports.now();
  const outcome = await ports.sources.search(hotel, key, signal, priority);
  const fail = async (kind: SourceFailureKind, reason: string): Promise<RefreshOutcome> => {
    ports.onFailure?.(key, { kind, reason });
    if (await hotelGone(recordSourceFailure(ports.db, key, { kind, reason }))) return removed;
    return kind === 'HotelNotOnIbe' || kind === 'AdultsCountNotSupported'
      ? { status: 'no-coverage', reason }
      : { status: 'failed', kind, reason };
  };
  let rooms: Room[];
  if (outcome.ok) rooms = outcome.rooms;
  else if (outcome.kind === 'RoomsNotAvailable') rooms = [];
  else return fail(outcome.kind, outcome.reason);
  const validated = validateResult(key, rooms);
  if (!validated.ok) return fail('InvalidResult', validated.reason);
  const stored = storeResult(ports.db, {
    ...key,
    body: validated.result.body,
    sha256: validated.result.sha256,
    fetchedAt,
    expiresAt: new Date(fetchedAt.getTime() + ports.freshnessMs),
  });
  let changed = false;
  if (await hotelGone(stored.then((result) => void (changed = result.changed)))) return removed;
  if (changed) {
    for (const subscription of await bumpSubscriptionsOfHotel(ports.db, key, ports.now().toISOString().slice(0, 10))) {
      await ports.enqueuePush(subscription.subscriptionId, `v${subscription.version}`);
    }
  }
  return { status: 'stored', body: validated.result.body, changed };
}
