import type { HotelSource, UpsertHotelBody } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';

export type HotelRow = {
  hotelId: string;
  name: string;
  ibe: string;
  address: string;
  countryCode: string;
  bookingServiceId: string | null;
  guests: number[];
  bookingPageUrl: string;
  source: HotelSource;
};

type DbHotelRow = {
  hotel_id: string;
  name: string;
  ibe: string;
  address: string;
  country_code: string;
  booking_service_id: string | null;
  guests: number[];
  booking_page_url: string;
  source: HotelSource;
};

const columns = 'h.hotel_id, h.name, h.ibe, h.address, h.country_code, h.booking_service_id, h.guests, h.booking_page_url, h.source';

function toHotelRow(row: DbHotelRow): HotelRow {
  return {
    hotelId: row.hotel_id,
    name: row.name,
    ibe: row.ibe,
    address: row.address,
    countryCode: row.country_code,
    bookingServiceId: row.booking_service_id,
    guests: row.guests,
    bookingPageUrl: row.booking_page_url,
    source: row.source,
  };
}

export async function upsertHotelRow(db: Queryable, hotel: UpsertHotelBody): Promise<HotelRow> {
  const result = await db.query<DbHotelRow>(
    `INSERT INTO hotels AS h (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (hotel_id) DO UPDATE SET name = EXCLUDED.name, ibe = EXCLUDED.ibe, address = EXCLUDED.address,
       country_code = EXCLUDED.country_code, booking_service_id = EXCLUDED.booking_service_id, guests = EXCLUDED.guests,
       booking_page_url = EXCLUDED.booking_page_url, source = EXCLUDED.source, updated_at = now()
     RETURNING ${columns}`,
    [
      hotel.hotelId,
      hotel.name,
      hotel.ibe,
      hotel.address,
      hotel.countryCode,
      hotel.bookingServiceId,
      hotel.guests,
      hotel.bookingPageUrl,
      JSON.stringify(hotel.source),
    ],
  );
  return toHotelRow(result.rows[0] as DbHotelRow);
}

export async function deleteHotelRow(db: Queryable, hotelId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM hotels WHERE hotel_id = $1', [hotelId]);
  return result.rowCount === 1;
}

/** Operator view: any hotel, regardless of grants. */
export async function findHotelRow(db: Queryable, hotelId: string): Promise<HotelRow | null> {
  // Named: a booking reads its hotel at every step (planned once per connection).
  const result = await db.query<DbHotelRow>({
    name: 'find-hotel-row',
    text: `SELECT ${columns} FROM hotels h WHERE h.hotel_id = $1`,
    values: [hotelId],
  });
  return result.rows[0] ? toHotelRow(result.rows[0]) : null;
}

export async function listAllHotelRows(db: Queryable): Promise<HotelRow[]> {
  const result = await db.query<DbHotelRow>(`SELECT ${columns} FROM hotels h ORDER BY h.hotel_id`);
  return result.rows.map(toHotelRow);
}

/** Tenant-scoped: a hotel not granted to the client is indistinguishable from a missing one. */
export async function findGrantedHotelRow(db: Queryable, clientId: string, hotelId: string): Promise<HotelRow | null> {
  const result = await db.query<DbHotelRow>({
    name: 'find-granted-hotel-row',
    text: `SELECT ${columns} FROM hotels h JOIN hotel_grants g ON g.hotel_id = h.hotel_id
     WHERE g.client_id = $1 AND h.hotel_id = $2`,
    values: [clientId, hotelId],
  });
  return result.rows[0] ? toHotelRow(result.rows[0]) : null;
}

export async function listGrantedHotelRows(db: Queryable, clientId: string, page: { limit: number; offset: number }): Promise<HotelRow[]> {
  const result = await db.query<DbHotelRow>(
    `SELECT ${columns} FROM hotels h JOIN hotel_grants g ON g.hotel_id = h.hotel_id
     WHERE g.client_id = $1 ORDER BY h.hotel_id LIMIT $2 OFFSET $3`,
    [clientId, page.limit, page.offset],
  );
  return result.rows.map(toHotelRow);
}

/** The subset of `hotelIds` granted to the client, with their rows. */
export async function findGrantedHotelRows(db: Queryable, clientId: string, hotelIds: string[]): Promise<HotelRow[]> {
  const result = await db.query<DbHotelRow>(
    `SELECT ${columns} FROM hotels h JOIN hotel_grants g ON g.hotel_id = h.hotel_id
     WHERE g.client_id = $1 AND h.hotel_id = ANY($2::text[])`,
    [clientId, hotelIds],
  );
  return result.rows.map(toHotelRow);
}

/** Grants all of `hotelIds`, or nothing when some do not exist (returns those). */
export async function insertGrants(db: Queryable, clientId: string, hotelIds: string[]): Promise<string[]> {
  const existing = await db.query<{ hotel_id: string }>('SELECT hotel_id FROM hotels WHERE hotel_id = ANY($1::text[])', [hotelIds]);
  const found = new Set(existing.rows.map((row) => row.hotel_id));
  const unknown = hotelIds.filter((hotelId) => !found.has(hotelId));
  if (unknown.length > 0) return unknown;
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, [
    clientId,
    hotelIds,
  ]);
  return [];
}

export async function deleteGrants(db: Queryable, clientId: string, hotelIds: string[]): Promise<number> {
  const result = await db.query('DELETE FROM hotel_grants WHERE client_id = $1 AND hotel_id = ANY($2::text[])', [clientId, hotelIds]);
  return result.rowCount ?? 0;
}

export async function clientExists(db: Queryable, clientId: string): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM clients WHERE client_id = $1 AND revoked_at IS NULL', [clientId]);
  return result.rowCount === 1;
}

export async function insertRedirectClick(
  db: Queryable,
  click: { hotelId: string; clientId: string | null; userAgent: string | null },
): Promise<void> {
  await db.query('INSERT INTO redirect_clicks (hotel_id, client_id, user_agent) VALUES ($1, $2, $3)', [
    click.hotelId,
    click.clientId,
    click.userAgent,
  ]);
}
