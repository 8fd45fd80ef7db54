/**
 * The raw bytes of messages this process accepted and has not delivered yet, by delivery id, up
 * to a byte budget (the oldest go first). The process that accepts a message usually delivers it
 * a few milliseconds later; with these bytes at hand its claim does not read the message back out
 * of Postgres (TOAST, hex encoding, twice the bytes over the socket: bench smtp). Only a copy:
 * Postgres stays the store, and a delivery this process does not hold here is read from there.
 */
export type RecentMessages = {
  remember(deliveryIds: string[], raw: Buffer): void;
  get(deliveryId: string): Buffer | undefined;
  forget(deliveryId: string): void;
};

export function createRecentMessages(maxBytes: number): RecentMessages {
  // A Map iterates in insertion order: its first key is the oldest.
  const byDelivery = new Map<string, Buffer>();
  let bytes = 0;
  const forget = (deliveryId: string) => {
    const raw = byDelivery.get(deliveryId);
    if (!raw) return;
    byDelivery.delete(deliveryId);
    bytes -= raw.length;
  };
  return {
    remember(deliveryIds, raw) {
      if (raw.length > maxBytes) return;
      for (const deliveryId of deliveryIds) {
        forget(deliveryId);
        byDelivery.set(deliveryId, raw);
        bytes += raw.length;
      }
      for (const oldest of byDelivery.keys()) {
        if (bytes <= maxBytes) break;
        forget(oldest);
      }
    },
    get: (deliveryId) => byDelivery.get(deliveryId),
    forget,
  };
}
