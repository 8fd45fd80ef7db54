import { sealedColumns } from '@quarry/keyring';
import { Webhook } from 'standardwebhooks';
import { withVettedAcsUrl } from './acs-url.ts';
import type { WorkerPorts } from './bookings-ports.ts';
import { findBooking } from './bookings.queries.ts';
import { renderBooking } from './find-booking.ts';

/** Thrown for a receiver that did not take the callback: the job's attempts retry it with backoff. */
class CallbackRefused extends Error {
  constructor(status: number) {
    super(`the callback URL answered ${status}`);
    this.name = 'CallbackRefused';
  }
}

/**
 * The `bookings.notify` job: POSTs the booking's status to its `callbackUrl` after a stage change,
 * signed per Standard Webhooks (`webhook-id` is the booking and its version, so a receiver drops a
 * repeat), through the SSRF guard. The body is the status when it is sent: a late retry never
 * shows an older stage than the booking has.
 */
export async function notifyBooking(
  ports: Pick<WorkerPorts, 'pool' | 'sealer' | 'fetchCallback' | 'now' | 'acsUrlPolicy'>,
  payload: { bookingId: string; seq: number },
  signal: AbortSignal,
): Promise<{ delivered: boolean; status?: number }> {
  const row = await findBooking(ports.pool, payload.bookingId);
  if (!row?.callbackUrl || !row.webhookSecretSealed) return { delivered: false };
  const status = await withVettedAcsUrl(ports.acsUrlPolicy, renderBooking(row));
  const now = (ports.now ?? (() => new Date()))();
  const body = JSON.stringify({ type: 'booking.stageChanged', timestamp: now.toISOString(), data: status });
  const id = `${row.bookingId}:${payload.seq}`;
  const signature = new Webhook(ports.sealer.open(sealedColumns.bookingWebhookSecret, row.bookingId, row.webhookSecretSealed)).sign(
    id,
    now,
    body,
  );
  const response = await ports.fetchCallback(row.callbackUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    },
    body,
    signal,
    timeoutMs: 15_000,
    maxBytes: 64 * 1024,
  });
  await response.text().catch(() => '');
  if (response.status < 200 || response.status >= 300) throw new CallbackRefused(response.status);
  return { delivered: true, status: response.status };
}
