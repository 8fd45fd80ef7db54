import type { IncomingMessage } from 'node:http';

/** What the demo's push receiver saw of one push: enough to show that rates arrived and changed. */
export type ReceivedPush = {
  receivedAt: string;
  stateVersion: string | null;
  bytes: number;
  hotels: Array<{ hotelId: string; searches: number; rooms: number }>;
};

/**
 * Stands in for a client's push endpoint: takes `PUT /push` with the subscription's API key,
 * parses the body (a JSON array of hotel results) and keeps a summary of the last pushes.
 */
export function createPushReceiver(maxKept = 20) {
  const pushes: ReceivedPush[] = [];
  let apiKey: string | null = null;
  return {
    pushes,
    /** Only pushes carrying this key are taken (the demo subscription's); others get 401. */
    expectApiKey(key: string) {
      apiKey = key;
    },
    async receive(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (apiKey === null || request.headers['x-api-key'] !== apiKey)
        return { status: 401, body: { error: 'X-API-KEY is not the demo subscription key' } };
      const raw = Buffer.concat(chunks);
      let results: unknown;
      try {
        results = JSON.parse(raw.toString('utf8'));
      } catch {
        return { status: 400, body: { error: 'body is not JSON' } };
      }
      if (!Array.isArray(results)) return { status: 400, body: { error: 'body must be a JSON array of hotel results' } };
      const byHotel = new Map<string, { hotelId: string; searches: number; rooms: number }>();
      for (const result of results as Array<{ hotelId?: unknown; rooms?: unknown }>) {
        const hotelId = typeof result?.hotelId === 'string' ? result.hotelId : '?';
        const entry = byHotel.get(hotelId) ?? { hotelId, searches: 0, rooms: 0 };
        entry.searches += 1;
        entry.rooms += Array.isArray(result?.rooms) ? result.rooms.length : 0;
        byHotel.set(hotelId, entry);
      }
      const version = request.headers['x-quarry-state-version'];
      pushes.unshift({
        receivedAt: new Date().toISOString(),
        stateVersion: typeof version === 'string' ? version : null,
        bytes: raw.length,
        hotels: [...byHotel.values()],
      });
      pushes.splice(maxKept);
      return { status: 200, body: { received: true } };
    },
  };
}
