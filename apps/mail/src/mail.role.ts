import { randomUUID } from 'node:crypto';
import { canaryJobHandler } from '@quarry/canary';
import type { ConfigFor } from '@quarry/config';
import { createPool, type Pool, type PoolEvents } from '@quarry/db';
import { bulkEnqueuer, enqueuer, startRoleWorkers, type JobQueues, type WorkerEvents } from '@quarry/jobs';
import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import { createMailService, deliveryPoolSize, startMailboxWatcher } from '@quarry/mail';
import type { Logger, Metrics } from '@quarry/observability';
import type { Redis } from 'ioredis';

/**
 * The `mail` role: inbound SMTP, the watching of handed-out pool mailboxes over IMAP, and the
 * delivery queue. The SMTP server closes first at shutdown
 * (sessions in progress get 421), then delivery jobs get the grace period like every other worker.
 * With `runsCanary`, it also takes the operator canary (`system.canary`; one worker role per process does).
 */
export async function startMailRole(runtime: {
  config: ConfigFor<'mail'>;
  db: Pool;
  /** The process's Postgres health log, for the delivery pool's connections too. */
  poolEvents: PoolEvents;
  redis: Redis;
  queues: JobQueues;
  metrics: Metrics;
  logger: Logger;
  events: WorkerEvents;
  workerId: string;
  runsCanary: boolean;
}): Promise<{ stop(graceMs: number): Promise<void> }> {
  const { config, db, queues, logger } = runtime;
  const workers = startRoleWorkers(
    {
      redis: runtime.redis,
      events: runtime.events,
      canary: runtime.runsCanary ? { 'system.canary': canaryJobHandler({ db, workerId: runtime.workerId }) } : null,
    },
    config,
  );
  const deliveryPool = createPool(config.databaseUrl, deliveryPoolSize(config.mail.deliveryConcurrency), runtime.poolEvents);
  const mail = createMailService({
    pool: db,
    deliveryPool,
    enqueue: enqueuer(queues, 'mail.deliver'),
    enqueueMany: bulkEnqueuer(queues, 'mail.deliver'),
    secretKey: config.secretKey,
    domains: config.mailDomains,
    mail: config.mail,
    smtp: config.smtp,
    mailboxSeenRetentionMs: config.mailbox.seenRetentionMs,
    onError: (error, where) => logger.error({ err: error, where }, 'mail error'),
    onDelivered: (latencySeconds) => runtime.metrics.mailDeliveryLatency.observe(latencySeconds),
  });
  const smtpPort = await mail.smtp.listen(config.smtpPort, config.smtp.host);
  // Closed by the role itself, after its SMTP server: a session in progress may still enqueue.
  const mailWorkers = workers.start({
    queues: ['mail'],
    concurrency: config.mail.deliveryConcurrency,
    closedByCaller: true,
    handlers: { 'mail.deliver': (payload) => mail.deliver(payload), 'mail.housekeeping': () => mail.housekeeping() },
  });
  await queues.schedule('mail.housekeeping', {}, { schedulerId: 'mail.housekeeping', everyMs: 60_000 });
  logger.info({ smtpPort }, 'smtp listening');
  // Handed-out pool accounts: their mailboxes are read over IMAP into the same delivery queue.
  const sealer = createSealer(config.secretKey, createDeploymentKeyring(config.keyring));
  const mailboxes = config.mailbox.watch
    ? startMailboxWatcher(
        {
          pool: db,
          enqueueMany: bulkEnqueuer(queues, 'mail.deliver'),
          hostname: config.mail.hostname,
          recent: mail.recent,
          // Unique per start: a restarted process (same pid in a container) must not renew a dead one's leases.
          watcherId: `${runtime.workerId}:${randomUUID().slice(0, 8)}`,
          seal: sealer.seal,
          open: sealer.open,
          now: () => new Date(),
          onEnqueueError: (error) => logger.error({ err: error, where: 'mailbox enqueue' }, 'mail error'),
          onError: (error, where) => logger.warn({ err: error, where }, 'mailbox error'),
        },
        config.mailbox,
      )
    : null;
  return {
    async stop(graceMs) {
      await Promise.all([
        (async () => {
          await Promise.race([mail.smtp.close(), new Promise((resolve) => setTimeout(resolve, Math.min(graceMs, 5_000)).unref())]);
          await mailboxes?.stop();
          await mailWorkers.close(graceMs);
          mail.close();
          await deliveryPool.end().catch(() => {});
        })(),
        workers.close(graceMs),
      ]);
    },
  };
}
