import { withTransaction, type Pool } from '@quarry/db';
import type { EnqueueMany } from '@quarry/jobs';
import { callbackClaimLock, claimDueCallbacks, purgeSettledCallbacks, type DispatchedCallback } from './callback-outbox.queries.ts';

export type RelaySettings = {
  /** Events of one client in flight at once, across the deployment. */
  clientConcurrency: number;
  /** Events per `callbacks.deliver` job. */
  eventsPerJob: number;
  /** How long a dispatch may stay in flight before its events are sent again (a lost job). */
  leaseMs: number;
  /** How often the relay looks for due events: new ones, retries that came due, lapsed leases. */
  pollMs: number;
  /** Delivered and given-up events are deleted this long after they were recorded. */
  retentionMs: number;
};

export type CallbackRelay = {
  /** Runs a claim soon (a delivery freed room, a test). */
  wake(): void;
  stop(): Promise<void>;
};

/** Groups the claimed events into jobs: one client per job, at most `size` events each. */
function jobsOf(claimed: DispatchedCallback[], size: number): Array<{ clientId: string; events: Array<{ eventId: string; seq: number }> }> {
  const byClient = new Map<string, Array<{ eventId: string; seq: number }>>();
  for (const event of claimed) {
    const events = byClient.get(event.clientId) ?? [];
    events.push({ eventId: event.eventId, seq: event.seq });
    byClient.set(event.clientId, events);
  }
  const jobs: Array<{ clientId: string; events: Array<{ eventId: string; seq: number }> }> = [];
  for (const [clientId, events] of byClient) {
    for (let start = 0; start < events.length; start += size) jobs.push({ clientId, events: events.slice(start, start + size) });
  }
  return jobs;
}

/**
 * The relay of recruitment's callback outbox (ADR 0053): every `pollMs` and whenever a delivery
 * freed room, it claims the due events under each client's cap and enqueues them as `callbacks.deliver` jobs. The
 * claim commits before the enqueue: an enqueue that fails (Redis away) leaves the events in flight
 * until their lease lapses, and the next claim sends them again under a new dispatch number.
 * Another outbox (bookings' stage changes) can be relayed by the same loop: it needs only its
 * claim and its enqueue. It polls rather than LISTENs: a NOTIFY at each owed event's commit would
 * serialize every outcome's commit, through its WAL flush, on Postgres' one notification lock.
 */
export function startCallbackRelay(options: {
  pool: Pool;
  enqueue: EnqueueMany<'callbacks.deliver'>;
  settings: RelaySettings;
  onError: (error: unknown, where: string) => void;
}): CallbackRelay {
  const { settings } = options;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let lastPurge = 0;

  const claimAndEnqueue = async (): Promise<number> => {
    const claimed = await withTransaction(options.pool, async (client) => {
      // A claim lost in a crash of Postgres only sends its events again (same webhook-id): it need
      // not wait for the WAL to reach the disk. The events themselves were owed synchronously.
      await client.query(`SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock($1)`, [callbackClaimLock]);
      return claimDueCallbacks(client, settings);
    });
    if (claimed.length === 0) return 0;
    const jobs = jobsOf(claimed, settings.eventsPerJob);
    // The job id names the dispatch: enqueued once per claim, whatever happens to the enqueue's answer.
    await options.enqueue(
      jobs.map((job) => ({ payload: job, options: { jobId: `callbacks-${job.events[0]?.eventId}-${job.events[0]?.seq}` } })),
    );
    return claimed.length;
  };

  const purge = async () => {
    if (Date.now() - lastPurge < 3_600_000) return;
    lastPurge = Date.now();
    const before = new Date(Date.now() - settings.retentionMs);
    while ((await purgeSettledCallbacks(options.pool, before, 10_000)) === 10_000 && !stopped);
  };

  const run = async () => {
    do {
      again = false;
      try {
        // A full claim may leave more due events behind (their clients had room): claim until none.
        while (!stopped && (await claimAndEnqueue()) > 0);
        await purge();
      } catch (error) {
        options.onError(error, 'callback relay');
      }
    } while (again && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = run().finally(() => {
      running = null;
    });
  };

  const timer = setInterval(wake, settings.pollMs);
  timer.unref();
  // Whatever was owed while no relay ran is claimed now.
  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
