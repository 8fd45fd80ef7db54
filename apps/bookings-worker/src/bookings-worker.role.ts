import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import {
  createBrowserBookingEngine,
  createOpenTravelBookingEngine,
  followBookingChangesForWaits,
  notifyBooking,
  relayBookingOutbox,
  runBookingStep,
  runCheckout,
  stalledStepAfterMs,
  stepLogLevel,
  sweepBookings,
  type BookingEngines,
  type WorkerPorts,
} from '@quarry/bookings';
import { createCheckoutChromium } from '@quarry/browser';
import { canaryJobHandler } from '@quarry/canary';
import type { ConfigFor } from '@quarry/config';
import type { Pool } from '@quarry/db';
import { enqueuer, isStoreOutage, startRoleWorkers, whenRedisIsBack, type JobQueues, type Shared, type WorkerEvents } from '@quarry/jobs';
import type { Logger } from '@quarry/observability';
import { findGrantedHotelRow, findHotelRow, findStoredRooms } from '@quarry/rates';
import { createAddressGuard, createHostGuard, createSafeFetch } from '@quarry/safe-fetch';
import { createCardVault, hasVaultKeys, noCardVault, vaultKeySettingsOf, type CardVault } from '@quarry/vault';
import type { Redis } from 'ioredis';

/** How often the outbox is read for jobs a committed change could not enqueue. */
const outboxRelayEveryMs = 1_000;

/**
 * The `bookings-worker` role: runs `bookings.step` (re-price, quote, place the order at most once,
 * read it after a 3-D Secure challenge), `bookings.notify` (the clients' callbacks) and the
 * `bookings.sweep` repeat (input and job timeouts, lost steps). With `runsCanary`, it also takes
 * the operator canary.
 */
export async function startBookingsRole(runtime: {
  config: ConfigFor<'bookings-worker'>;
  db: Pool;
  redis: Redis;
  queues: JobQueues;
  logger: Logger;
  events: WorkerEvents;
  workerId: string;
  runsCanary: boolean;
  shared: Shared;
  /** Replaces the card vault (tests run the role with a vault of their own). */
  vault?: CardVault;
  /** Replaces the engines by source kind (tests). */
  engines?: BookingEngines;
}): Promise<{ stop(graceMs: number): Promise<void> }> {
  const { config, db, queues, logger } = runtime;
  const sourceFetch = createSafeFetch({
    allowPrivate: config.allowPrivateUrls,
    timeoutMs: config.bookings.sourceTimeoutMs,
    userAgent: 'Quarry/1.0 bookings',
  });
  const fetchCallback = runtime.shared('client-url-fetch', () =>
    createSafeFetch({ allowPrivate: config.allowPrivateUrls, userAgent: 'Quarry/1.0 (+https://github.com/quarry)' }),
  );
  // A Chromium of its own, never the one mining and applying share in one process (they render any
  // URL a client submits): it renders only registered booking pages, every site in a renderer of
  // its own, sandboxed (ADR 0056). Its booking contexts are under their own limit: a checkout holds
  // its context through the client's waits. Started on the first booking page; mining's switch
  // (MINING_BROWSER) is mining's alone and never turns it off (ADR 0061).
  const chromium = runtime.shared('checkout-chromium', () =>
    createCheckoutChromium(config.browser, config.chromiumRunAs, (event) =>
      logger.info({ ...event, browser: 'checkout' }, 'browser recycled'),
    ),
  );
  const pageGuard = createHostGuard(config.allowPrivateUrls);
  const acsGuard = createAddressGuard(config.allowPrivateUrls);
  const bookingPages = createBrowserBookingEngine({
    browser: chromium.lane(config.bookings.browserContexts, config.bookings.searchPages),
    checkUrl: async (url) => {
      if (!(await pageGuard(url))) throw new Error(`the booking page may not reach ${new URL(url).host}`);
    },
    timeoutMs: config.bookings.sourceTimeoutMs,
  });
  // A held checkout is woken by the consent's commit instead of polling for it (one connection of its own).
  const bookingChanges = followBookingChangesForWaits(config.databaseUrl, (error) =>
    logger.warn({ err: error }, 'booking changes listener lost its connection; held checkouts poll for the consent until it is back'),
  );
  const ports: WorkerPorts = {
    pool: db,
    sealer: createSealer(config.secretKey, createDeploymentKeyring(config.keyring)),
    // The card of a token for the order, its purge when the booking ends; without VAULT_KEY no card opens.
    vault:
      runtime.vault ??
      (hasVaultKeys(config.vault)
        ? createCardVault({
            db,
            redis: runtime.redis,
            keys: vaultKeySettingsOf(config.vault),
            prefix: config.queuePrefix,
            cvvTtlMs: config.vault.cvvTtlMs,
            cardRetentionMs: config.vault.cardRetentionMs,
            logger,
          })
        : noCardVault),
    findGrantedHotel: (clientId, hotelId) => findGrantedHotelRow(db, clientId, hotelId),
    findHotel: (hotelId) => findHotelRow(db, hotelId),
    storedRooms: (search) => findStoredRooms(db, search),
    enqueueStep: enqueuer(queues, 'bookings.step'),
    enqueueNotify: enqueuer(queues, 'bookings.notify'),
    engines: runtime.engines ?? {
      opentravel: createOpenTravelBookingEngine({ fetch: sourceFetch, timeoutMs: config.bookings.sourceTimeoutMs }),
      'booking-page': bookingPages,
    },
    enqueueCheckout: enqueuer(queues, 'bookings.checkout'),
    workerId: runtime.workerId,
    // Its own setting: longer than a store outage a held page should outlive (ADR 0048).
    checkoutLeaseMs: config.bookings.checkoutLeaseMs,
    // A step's hold on the order lasts as long as its queue lock: a dead worker's order is taken over as fast as its job.
    orderLeaseMs: config.jobLockMs,
    bookingChanges,
    timers: config.bookings,
    fetchCallback,
    // A callback shows the hotel's ACS URL under the policy GET /book/{id} and the 3-D Secure page apply.
    acsUrlPolicy: { vetAcsHost: (hostname) => acsGuard.vet(hostname), allowLoopbackHttp: config.allowLoopbackHttpHotels },
    onError: (error, where) => logger.warn({ err: error, where }, 'booking side effect failed'),
  };
  const workers = startRoleWorkers(
    {
      redis: runtime.redis,
      events: runtime.events,
      canary: runtime.runsCanary ? { 'system.canary': canaryJobHandler({ db, workerId: runtime.workerId }) } : null,
    },
    config,
  );
  workers.start({
    queues: ['bookings.step'],
    concurrency: config.bookings.concurrency,
    handlers: {
      'bookings.step': async (payload, { signal, lockLost, isFinalAttempt }) => {
        const summary = await runBookingStep(ports, payload.bookingId, { signal, lockLost, finalAttempt: isFinalAttempt });
        // Ids, stages and codes only: guests and cards are never logged.
        logger[stepLogLevel(summary)](summary, 'booking step');
        return summary;
      },
    },
  });
  // Checkouts in a browser, as many at once as the process has booking contexts. At shutdown the
  // job is handed back when the grace runs out, while its run still records what it stopped (a
  // booking failed before the order, or handed to the reservation lookup): the role waits for that.
  const runningCheckouts = new Set<Promise<unknown>>();
  workers.start({
    queues: ['bookings.checkout'],
    concurrency: config.bookings.browserContexts,
    handlers: {
      'bookings.checkout': async (payload, { signal }) => {
        const run = runCheckout(ports, payload.bookingId, { signal, finalAttempt: true });
        runningCheckouts.add(run);
        try {
          const summary = await run;
          logger[stepLogLevel(summary)](summary, 'booking checkout');
          return summary;
        } finally {
          runningCheckouts.delete(run);
        }
      },
    },
  });
  workers.start({
    queues: ['bookings.notify'],
    handlers: { 'bookings.notify': (payload, { signal }) => notifyBooking(ports, payload, signal) },
  });
  const sweep = async () => {
    const summary = await sweepBookings(ports);
    if (summary.inputTimeouts + summary.jobTimeouts + summary.requeued > 0) logger.info(summary, 'bookings swept');
    return summary;
  };
  // A Redis restarted empty lost the steps queued in it, and the scheduled sweep with them: put
  // them back as soon as Redis is back instead of at the next round.
  const stopSweepingOnReconnect = whenRedisIsBack(runtime.redis, async () => void (await sweep()), {
    followUpMs: stalledStepAfterMs + 1_000,
    onError: (error) => {
      if (!isStoreOutage(error)) logger.error({ err: error }, 'sweeping bookings after Redis came back failed');
    },
  });
  workers.start({
    queues: ['bookings.control'],
    concurrency: 1,
    handlers: {
      'bookings.sweep': () => sweep(),
    },
  });
  await queues.schedule('bookings.sweep', {}, { schedulerId: 'bookings-sweep', everyMs: config.bookings.sweepEveryMs });
  // The outbox relay: jobs of committed changes that their caller could not enqueue (Redis away
  // between the commit and the enqueue), enqueued once Redis is back (ADR 0048).
  let relaying = false;
  const relay = setInterval(() => {
    // One pass at a time: while Redis is away a pass waits for it, and the next starts after.
    if (relaying) return;
    relaying = true;
    relayBookingOutbox(ports)
      .then(
        (sent) => {
          if (sent > 0) logger.info({ sent }, 'booking jobs enqueued from the outbox');
        },
        (error: unknown) => {
          if (!isStoreOutage(error)) logger.warn({ err: error }, 'booking outbox relay failed; it runs again in a second');
        },
      )
      .finally(() => {
        relaying = false;
      });
  }, outboxRelayEveryMs);
  relay.unref();
  return {
    async stop(graceMs) {
      clearInterval(relay);
      stopSweepingOnReconnect();
      await workers.close(graceMs);
      await Promise.race([Promise.allSettled([...runningCheckouts]), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      await sourceFetch.close();
      await bookingChanges.stop();
    },
  };
}
