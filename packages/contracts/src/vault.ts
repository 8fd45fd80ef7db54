import { z } from 'zod';

/**
 * Card tokens of the interface: v1 is 164 characters, v2 is `v2:` + 296 (299 in all). The vault
 * issues base64url tokens; a v1 token is also accepted in the base64 alphabet (`+ / =`), the way
 * tokens of earlier issuers may be written. A token is shaped, not yet valid: only the vault can
 * tell whether it names a card.
 */
export const panTokenV1Pattern = /^[A-Za-z0-9+/=_-]{164}$/;
export const panTokenV2Pattern = /^v2:[A-Za-z0-9_-]{296}$/;
export const panTokenMaxLength = 299;

export function isPanTokenShaped(token: unknown): boolean {
  return typeof token === 'string' && (panTokenV2Pattern.test(token) || panTokenV1Pattern.test(token));
}

export const PanToken = z
  .string()
  .max(panTokenMaxLength)
  .refine(isPanTokenShaped, 'must be a card token from POST /vault/pan: v2 ("v2:" + 296 characters) or v1 (164 characters)')
  .meta({ description: 'A card token: v2 is "v2:" + 296 characters (299 in all), v1 is 164 characters' });

/** The Luhn (mod 10) check digit of card numbers: catches every single-digit typo and most swaps. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A card number as people write it (spaces or dashes between groups) → its digits, checked. */
const Pan = z
  .string()
  .max(40)
  .transform((value) => value.replace(/[ -]/g, ''))
  .superRefine((digits, context) => {
    if (!/^\d{13,19}$/.test(digits))
      context.addIssue({ code: 'custom', message: 'must be 13 to 19 digits (spaces and dashes between them allowed)' });
    else if (!passesLuhn(digits))
      context.addIssue({ code: 'custom', message: 'is not a card number (the Luhn check digit does not match)' });
  })
  .meta({ description: 'The card number, 13 to 19 digits; spaces and dashes between digits are ignored', example: '4111 1111 1111 1111' });

/** A number sent as a JSON number or as a string of digits ("05"). */
const wholeNumber = (min: number, max: number, message: string) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,4}$/, message)
        .transform(Number),
    ])
    .pipe(z.number().int(message).min(min, message).max(max, message));

/** POST /vault/pan: a card to keep, authorised by a one-time password from POST /vault/otp. */
export const StorePanBody = z.object({
  otp: z.string().min(1).max(200).meta({ description: 'The id of an unused OTP of this client (POST /vault/otp), younger than an hour' }),
  pan: Pan,
  expiryMonth: wholeNumber(1, 12, 'must be a month, 1 to 12'),
  expiryYear: wholeNumber(2000, 2099, 'must be a four-digit year'),
  name: z.string().trim().min(1, 'is required: the name on the card').max(200),
  cvv: z
    .string()
    .regex(/^\d{3,4}$/, 'must be 3 or 4 digits')
    .optional()
    .meta({ description: 'Kept only in memory-backed storage until its one use or 15 minutes, never in the database' }),
  tokenVersion: z.enum(['v1', 'v2']).default('v2').meta({
    description: 'The token format to issue: v2 (299 characters, the default) or v1 (164 characters) for clients that store only v1 tokens',
  }),
});
export type StorePanBody = z.output<typeof StorePanBody>;

export const OtpView = z.object({
  id: z.string().meta({ description: 'The one-time password: sent back as `otp` of POST /vault/pan, once' }),
  object: z.literal('otp'),
  expiresAt: z.iso.datetime(),
});
export type OtpView = z.infer<typeof OtpView>;

export const PanTokenView = z.object({ panToken: PanToken });
export type PanTokenView = z.infer<typeof PanTokenView>;
