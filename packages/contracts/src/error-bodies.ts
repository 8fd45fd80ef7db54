import { z } from 'zod';
import { errorCatalog } from './errors.ts';

/** The two error body shapes of `errors.ts` as schemas, for the API's description. */
export const StandardErrorBodySchema = z.object({
  object: z.literal('error'),
  name: z.enum(Object.keys(errorCatalog) as [keyof typeof errorCatalog]),
  message: z.string(),
  details: z.object({ messages: z.array(z.string()).optional() }).catchall(z.unknown()),
});

export const QuestionsErrorBodySchema = z.object({ error: z.string(), message: z.string() });
