import { z } from 'zod';
import type { VariablesOf } from './section.ts';

/** The general key (clients' secrets, sealed values): required by every role that reads this section. */
export const secretVariables = {
  QUARRY_SECRET_KEY: z
    .string({ error: 'is required: 32 random bytes, base64 (openssl rand -base64 32)' })
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded'),
};

export const readSecret = (vars: VariablesOf<typeof secretVariables>) => ({ secretKey: Buffer.from(vars.QUARRY_SECRET_KEY, 'base64') });

/** QUARRY_SECRET_KEY for the sections that use it when it is given and run without it. */
export const optionalSecretKey = z.object(secretVariables).partial().shape;

// The mining worker (section `accountsKey`) opens the Workday accounts clients registered with
// QUARRY_SECRET_KEY when it has it; without it, mining still runs and those postings answer LoginRequired.
export const readAccountsKey = (vars: VariablesOf<typeof optionalSecretKey>) => ({
  accountsKey: vars.QUARRY_SECRET_KEY === undefined ? undefined : Buffer.from(vars.QUARRY_SECRET_KEY, 'base64'),
});
