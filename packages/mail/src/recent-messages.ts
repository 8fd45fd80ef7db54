/**
 * The raw bytes of messages this process accepted and has not delivered yet, by delivery id,
 * within a byte budget and an age (the oldest go first). The process that accepts a message usually delivers it
 * a few milliseconds later; with these bytes at hand its claim does not read the message back out
 * of Postgres (TOAST, hex encoding, twice the bytes over the socket: bench smtp). Only a copy:
 * Postgres stays the store, and a delivery this process does not hold here is read from there.
 */
export type RecentMessages = {
  remember(deliveryIds: string[], raw: Buffer): void;
  get(deliveryId: string): Buffer | undefined;
  forget(deliveryId: string): void;
};

export function createRecentMessages(limits: { maxBytes: number; maxAgeMs: number; now?: () => number }): RecentMessages {
  const now = limits.now ?? Date.now;
  // A Map iterates in insertion order: its first key is the oldest.
  const byDelivery = new Map<string, { raw: Buffer; at: number }>();
  let bytes = 0;
  const forget = (deliveryId: string) => {
    const entry = byDelivery.get(deliveryId);
    if (!entry) return;
    byDelivery.delete(deliveryId);
    bytes -= entry.raw.length;
  };
  return {
    remember(deliveryIds, raw) {
      const at = now();
      if (raw.length <= limits.maxBytes) {
        for (const deliveryId of deliveryIds) {
          forget(deliveryId);
          byDelivery.set(deliveryId, { raw, at });
          bytes += raw.length;
        }
      }
      // With several processes, a delivery is often sent by another one and never released here:
      // such copies leave by age, checked as messages arrive.
      for (const [oldest, entry] of byDelivery) {
        if (bytes <= limits.maxBytes && at - entry.at <= limits.maxAgeMs) break;
        forget(oldest);
      }
    },
    get: (deliveryId) => byDelivery.get(deliveryId)?.raw,
    forget,
  };
}
