import { z } from 'zod';
import { httpUrlMaxLength } from './http-url.ts';
import { hasNul, nulMessage } from './nul-bytes.ts';

/** A client's callback URL (ADR 0053): checked here for its form, and against the SSRF policy where it is registered and at each delivery. */
export const CallbackUrl = z
  .string()
  .max(httpUrlMaxLength)
  .refine((value) => !hasNul(value), nulMessage)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 && url.username === '' && url.password === ''
      );
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL without credentials')
  .describe(
    "Where the outcome is POSTed, signed per Standard Webhooks with the client's callback secret (ADR 0053); without it, the client's default URL, if any",
  );
