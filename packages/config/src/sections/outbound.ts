import { z } from 'zod';
import type { VariablesOf } from './section.ts';

export const outboundVariables = {
  ALLOW_PRIVATE_URLS: z.string().default(''),
};

export const readOutbound = (vars: VariablesOf<typeof outboundVariables>) => ({
  allowPrivateUrls: vars.ALLOW_PRIVATE_URLS.split(',')
    .map((entry) => entry.trim())
    .filter(Boolean),
});
