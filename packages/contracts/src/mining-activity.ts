import { z } from 'zod';

/** `GET /v1/admin/mining-activity`: how far back, in whole minutes (the dashboard asks for the last hour). */
export const MiningActivityQuery = z.object({ minutes: z.coerce.number().int().min(1).max(1_440).default(60) });

/** Job posts (single and batch rows) that finished in one minute; successRate is null when none did. */
export const MiningActivityMinute = z.object({
  minute: z.iso.datetime(),
  processed: z.number().int().min(0),
  succeeded: z.number().int().min(0),
  failed: z.number().int().min(0),
  successRate: z.number().min(0).max(1).nullable(),
});

/** One entry per minute, oldest first, the last one being the current (still filling) minute. */
export const MiningActivity = z.object({ minutes: z.array(MiningActivityMinute) });
export type MiningActivity = z.infer<typeof MiningActivity>;
