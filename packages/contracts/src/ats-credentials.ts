import { z } from 'zod';
import { hasNul, nulMessage } from './nul-bytes.ts';

/**
 * The ATSs whose employer-authorized API the service can submit through. A key for another vendor
 * is refused rather than stored unused: the client would believe its applications go through it.
 */
export const atsCredentialVendors = ['greenhouse', 'lever', 'ashby', 'workable', 'smartrecruiters', 'bamboohr', 'jazzhr', 'breezy', 'teamtailor'] as const;
export const AtsCredentialVendor = z.enum(atsCredentialVendors);
export type AtsCredentialVendor = z.infer<typeof AtsCredentialVendor>;

/**
 * The board a key opens, as the posting URLs name it: Greenhouse's board token, Lever's site,
 * Ashby's hosted jobs page name, Workable's account, SmartRecruiters' company identifier, BambooHR's, JazzHR's, Breezy's and Teamtailor's company subdomain. Lowercase, since the vendors' URLs are case-insensitive there.
 */
const board = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._-]+$/, 'must be the board name of the posting URLs (letters, digits, . _ -)')
  .transform((value) => value.toLowerCase());

/** POST /v1/recruitment/ats-credentials: the employer's key for one board; a repeat replaces it. */
export const AtsCredentialBody = z.object({
  ats: AtsCredentialVendor,
  board,
  key: z.string().min(1).max(1000).refine((value) => !hasNul(value), nulMessage),
});
export type AtsCredentialBody = z.infer<typeof AtsCredentialBody>;

/** What is shown of a stored key: never the key itself. */
export const AtsCredentialSummary = z.object({
  ats: AtsCredentialVendor,
  board: z.string(),
  createdAt: z.string().describe('ISO 8601: when the key was registered (or last replaced)'),
});
export type AtsCredentialSummary = z.infer<typeof AtsCredentialSummary>;

export const AtsCredentialList = z.object({ credentials: z.array(AtsCredentialSummary) });
export type AtsCredentialList = z.infer<typeof AtsCredentialList>;

export const AtsCredentialParams = z.object({ ats: AtsCredentialVendor, board });
export type AtsCredentialParams = z.infer<typeof AtsCredentialParams>;
