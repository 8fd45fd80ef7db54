import { z } from 'zod';
import type { VariablesOf } from './section.ts';

export const databaseVariables = {
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgres://postgres@127.0.0.1:5432/quarry'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
};

export const readDatabase = (vars: VariablesOf<typeof databaseVariables>) => ({
  databaseUrl: vars.DATABASE_URL,
  databasePoolSize: vars.DATABASE_POOL_SIZE,
});
