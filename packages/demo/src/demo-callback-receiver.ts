import type { IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** What the demo's callback receiver saw of one callback: the event, and whether its signature verified. */
export type ReceivedCallback = {
  receivedAt: string;
  webhookId: string;
  verified: boolean;
  duplicate: boolean;
  type: string;
  data: unknown;
};

/**
 * Stands in for a platform's callback endpoint (recruitment's callbacks, ADR 0053): takes
 * `POST /callbacks`, verifies the Standard Webhooks signature with the demo client's secret, marks
 * a repeated `webhook-id` as a duplicate (as a receiver should drop it), and keeps the last ones.
 */
export function createCallbackReceiver(maxKept = 50) {
  const callbacks: ReceivedCallback[] = [];
  const seen = new Set<string>();
  let webhook: Webhook | null = null;
  return {
    callbacks,
    /** The demo client's secret, shown once when its default callback URL was set. */
    expectSecret(secret: string) {
      webhook = new Webhook(secret);
    },
    async receive(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
      let raw = '';
      for await (const chunk of request) {
        raw += (chunk as Buffer).toString('utf8');
        if (raw.length > 1_000_000) return { status: 413, body: { error: 'too large' } };
      }
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      let verified = false;
      try {
        verified = webhook !== null && Boolean(webhook.verify(raw, headers));
      } catch {
        verified = false;
      }
      const event = JSON.parse(raw) as { type?: string; data?: unknown };
      const duplicate = seen.has(headers['webhook-id']);
      seen.add(headers['webhook-id']);
      callbacks.unshift({
        receivedAt: new Date().toISOString(),
        webhookId: headers['webhook-id'],
        verified,
        duplicate,
        type: String(event.type),
        data: event.data,
      });
      callbacks.splice(maxKept);
      // A callback whose signature does not verify is refused, as a real receiver would.
      return verified ? { status: 204, body: null } : { status: 401, body: { error: 'signature did not verify' } };
    },
  };
}
