import type { ConfigFor } from '@quarry/config';
import { AppError } from '@quarry/contracts';
import { createPool, migrateToLatest } from '@quarry/db';
import { changeGrants, listHotelsForOperator, removeHotel, toListing, upsertHotel } from '@quarry/rates';

/**
 * `quarry hotels …`: the hotel registry from the command line; prints JSON on stdout.
 *   add --json '{"hotelId":…}'        add or replace a hotel (same body as PUT /v1/admin/hotels/{id})
 *   list                              every hotel of the registry
 *   remove HOTEL_ID
 *   grant CLIENT_ID HOTEL_ID…         give a client access to hotels
 *   revoke CLIENT_ID HOTEL_ID…
 * Grant changes move the client's push subscriptions to a new state; the rates-worker's scheduler
 * tick delivers it (the CLI does not talk to the queues).
 */
export async function runHotelsCommand(
  config: ConfigFor<'hotels'>,
  subcommand: string | undefined,
  args: string[],
  options: { json: string | undefined },
): Promise<void> {
  await migrateToLatest(config.databaseUrl);
  const db = createPool(config.databaseUrl, 2);
  const enqueuePush = async () => {};
  const explain = (error: unknown): never => {
    if (error instanceof AppError) throw new Error(`hotels ${subcommand}: ${(error.details.messages ?? [error.message]).join('; ')}`);
    throw error;
  };
  try {
    if (subcommand === 'add') {
      let body: unknown;
      try {
        body = JSON.parse(options.json ?? '');
      } catch {
        throw new Error('hotels add: give the hotel as --json \'{"hotelId": …}\'');
      }
      const cardTransport = {
        allowLoopbackHttp: config.allowLoopbackHttpHotels,
        warn: (fields: Record<string, unknown>, message: string) =>
          process.stderr.write(`${JSON.stringify({ level: 'warn', ...fields, msg: message })}\n`),
      };
      const hotel = await upsertHotel({ db, cardTransport }, body).catch(explain);
      process.stdout.write(`${JSON.stringify({ ...toListing(hotel), bookingPageUrl: hotel.bookingPageUrl, source: hotel.source })}\n`);
    } else if (subcommand === 'list') {
      process.stdout.write(`${JSON.stringify(await listHotelsForOperator({ db }), null, 2)}\n`);
    } else if (subcommand === 'remove') {
      const [hotelId] = args;
      if (!hotelId) throw new Error('hotels remove: give the hotel id');
      await removeHotel({ db }, hotelId).catch(explain);
      process.stdout.write(`${JSON.stringify({ hotelId, removed: true })}\n`);
    } else if (subcommand === 'grant' || subcommand === 'revoke') {
      const [clientId, ...hotelIds] = args;
      if (!clientId || hotelIds.length === 0) throw new Error(`hotels ${subcommand}: give a client id and hotel ids`);
      const result = await changeGrants({ db, enqueuePush }, { clientId, hotelIds }, subcommand).catch(explain);
      process.stdout.write(`${JSON.stringify({ ...result, [subcommand === 'grant' ? 'granted' : 'revoked']: true })}\n`);
    } else {
      throw new Error('hotels: use add, list, remove, grant or revoke');
    }
  } finally {
    await db.end();
  }
}
