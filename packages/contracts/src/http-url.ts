import { z } from 'zod';
import { hasNul, nulMessage } from './nul-bytes.ts';

/**
 * The longest URL any request field takes (a job post, an apply page, a file to fetch, a callback).
 * The interface sets none; 2,048 is the limit its most used field, the job post's `url`, has always
 * had here (ADR 0060), and a longer address is refused by many servers and proxies anyway.
 */
export const httpUrlMaxLength = 2048;

const isHttpUrlWithHost = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
};

/** An absolute http(s) URL with a host, as every request field that names a page or a file takes it. */
export const HttpUrl = z
  .string()
  .max(httpUrlMaxLength)
  .refine((value) => !hasNul(value), nulMessage)
  .refine(isHttpUrlWithHost, 'must be an absolute http(s) URL');
