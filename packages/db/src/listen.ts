import pg from 'pg';

export type ChannelListener = { stop: () => Promise<void> };

/**
 * A connection of its own that LISTENs on one channel and comes back after the server or the
 * network drops it. `onLost` is called as soon as notifications may have been missed (the
 * connection ended) and `onListening` once LISTEN is in force again, so a reader can trust what
 * it derived from notifications only between the two. Postgres delivers a NOTIFY issued inside a
 * transaction at its commit and never for a rollback, which is what makes it safe to cache by.
 * It never throws: while Postgres is away it keeps trying every `retryMs`, and tells `onLost` once
 * per outage, not once per attempt.
 */
export function listenOnChannel(
  databaseUrl: string,
  channel: string,
  handlers: { onNotification: (payload: string) => void; onLost: (error?: Error) => void; onListening: () => void; retryMs?: number },
): ChannelListener {
  let stopped = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const retryMs = handlers.retryMs ?? 1_000;
  let reported = false;
  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    let ended = false;
    const lost = (error?: Error) => {
      if (ended) return;
      ended = true;
      if (!reported && !stopped) handlers.onLost(error);
      reported = true;
      client.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect().catch(() => {}), retryMs);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    current = client;
    try {
      await client.connect();
      // The channel is ours (a constant of the caller), never input: identifiers cannot be bound.
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      lost(error as Error);
      return;
    }
    if (ended) return;
    reported = false;
    handlers.onListening();
  };
  void connect();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(retry);
      await current?.end().catch(() => {});
    },
  };
}
