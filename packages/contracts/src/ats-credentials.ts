import { z } from 'zod';
import { hasNul, nulMessage } from './nul-bytes.ts';

/**
 * The ATSs whose employer-authorized API the service can submit through, and Workday, whose
 * hosted application signs in with a candidate account the client registers for the tenant. A
 * credential for another vendor is refused rather than stored unused: the client would believe
 * its applications go through it.
 */
export const atsCredentialVendors = [
  'greenhouse',
  'lever',
  'ashby',
  'workable',
  'smartrecruiters',
  'bamboohr',
  'jazzhr',
  'breezy',
  'teamtailor',
  'workday',
] as const;
export const AtsCredentialVendor = z.enum(atsCredentialVendors);
export type AtsCredentialVendor = z.infer<typeof AtsCredentialVendor>;

/** The vendors whose credential is an account on a tenant (email and password), not an API key. */
export const atsAccountVendors: readonly AtsCredentialVendor[] = ['workday'];

/**
 * A Workday tenant as its posting URLs name it: its own host (`acme.wd5.myworkdayjobs.com`), or
 * a shared host and the tenant its path names (`wd5.myworkdaysite.com/recruiting/acme/…` →
 * `wd5.myworkdaysite.com/acme`): accounts are per tenant, and the shared host serves many.
 */
const workdayTenant = /^[a-z0-9-]+\.wd\d+\.myworkdayjobs\.com$|^wd\d+\.myworkdaysite\.com\/[a-z0-9_-]+$/;

/**
 * The board a key opens, as the posting URLs name it: Greenhouse's board token, Lever's site,
 * Ashby's hosted jobs page name, Workable's account, SmartRecruiters' company identifier, BambooHR's, JazzHR's, Breezy's and Teamtailor's company subdomain, Workday's tenant host (or `host/tenant`, the one board with a slash). Lowercase, since the vendors' URLs are case-insensitive there.
 */
const board = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9._-]+(\/[A-Za-z0-9_-]+)?$/,
    'must be the board name of the posting URLs (letters, digits, . _ -; Workday: host/tenant on myworkdaysite.com)',
  )
  .transform((value) => value.toLowerCase());

const secret = z
  .string()
  .min(1)
  .max(1000)
  .refine((value) => !hasNul(value), nulMessage);

/**
 * POST /v1/recruitment/ats-credentials: the employer's key for one board (`key`), or for Workday
 * a candidate account on one tenant (`email`, `password`; the board is the tenant's host, or
 * `wd{N}.myworkdaysite.com/{tenant}`); a repeat replaces it.
 */
export const AtsCredentialBody = z
  .object({
    ats: AtsCredentialVendor,
    board,
    key: secret.optional().describe('The API key (every vendor but Workday)'),
    email: z.email().max(320).optional().describe("Workday: the account's sign-in email"),
    password: secret.optional().describe("Workday: the account's password"),
  })
  .superRefine((body, context) => {
    const needs = (field: 'key' | 'email' | 'password', why: string) => {
      if (body[field] === undefined) context.addIssue({ code: 'custom', path: [field], message: why });
    };
    const unused = (field: 'key' | 'email' | 'password') => {
      if (body[field] !== undefined) context.addIssue({ code: 'custom', path: [field], message: `not used for ${body.ats}` });
    };
    if (atsAccountVendors.includes(body.ats)) {
      needs('email', 'required: the email of the candidate account on the tenant');
      needs('password', 'required: the password of that account');
      unused('key');
      if (!workdayTenant.test(body.board))
        context.addIssue({
          code: 'custom',
          path: ['board'],
          message:
            'must be the tenant host of the posting URLs, e.g. acme.wd5.myworkdayjobs.com, or host/tenant on myworkdaysite.com, e.g. wd5.myworkdaysite.com/acme',
        });
    } else {
      if (body.board.includes('/'))
        context.addIssue({ code: 'custom', path: ['board'], message: 'must be the board name of the posting URLs, without a slash' });
      needs('key', 'required: the API key');
      unused('email');
      unused('password');
    }
  });
export type AtsCredentialBody = z.infer<typeof AtsCredentialBody>;

/** A Workday account as it is kept (sealed) and opened for the hosted form. */
export const AtsAccountSecret = z.object({ email: z.string(), password: z.string() });

/** What is shown of a stored key: never the key itself. */
export const AtsCredentialSummary = z.object({
  ats: AtsCredentialVendor,
  board: z.string(),
  createdAt: z.iso.datetime().describe('ISO 8601: when the key was registered (or last replaced)'),
});
export type AtsCredentialSummary = z.infer<typeof AtsCredentialSummary>;

export const AtsCredentialList = z.object({ credentials: z.array(AtsCredentialSummary) });
export type AtsCredentialList = z.infer<typeof AtsCredentialList>;

export const AtsCredentialParams = z.object({ ats: AtsCredentialVendor, board });
export type AtsCredentialParams = z.infer<typeof AtsCredentialParams>;
