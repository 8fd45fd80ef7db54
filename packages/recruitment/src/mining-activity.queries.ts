import type { Queryable } from '@quarry/db';

export type ActivityMinute = { minute: Date; processed: number; succeeded: number };

/**
 * Job posts that finished (completed or failed) in each of the last `minutes` whole minutes,
 * oldest first, the current minute last. Every minute is present, with zeros when nothing
 * finished; Postgres' clock decides what "now" is, as it stamped `finished_at`.
 */
export async function miningActivityByMinute(db: Queryable, minutes: number): Promise<ActivityMinute[]> {
  const result = await db.query<ActivityMinute>(
    `SELECT slot.minute,
            count(s.submission_id)::int AS processed,
            count(s.submission_id) FILTER (WHERE s.state = 'completed')::int AS succeeded
       FROM generate_series(date_trunc('minute', now()) - make_interval(mins => $1::int - 1), date_trunc('minute', now()), interval '1 minute') AS slot(minute)
       LEFT JOIN submissions s
         ON s.finished_at >= slot.minute AND s.finished_at < slot.minute + interval '1 minute' AND s.state IN ('completed', 'failed')
      GROUP BY slot.minute
      ORDER BY slot.minute`,
    [minutes],
  );
  return result.rows;
}
