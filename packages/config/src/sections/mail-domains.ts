import { z } from 'zod';
import type { VariablesOf } from './section.ts';

export const mailDomainsVariables = {
  // Read by the API (binding recipients) and the mail role (SMTP recipients); README "Email forwarding".
  MAIL_DOMAINS: z
    .string()
    .default('localhost')
    .refine((value) => value.split(',').every((domain) => /^[a-z0-9.-]+$/i.test(domain.trim())), 'must be comma-separated domain names'),
};

export const readMailDomains = (vars: VariablesOf<typeof mailDomainsVariables>) => ({
  mailDomains: vars.MAIL_DOMAINS.split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean),
});
