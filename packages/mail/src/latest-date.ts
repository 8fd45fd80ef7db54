/**
 * `updateExpiresAt.latestDate` arrives in one of three forms: ISO 8601 with a time,
 * `YYYY-MM-DD`, and JavaScript's long form (`Wed Jan 01 2025 00:00:00 GMT+0000 (Coordinated
 * Universal Time)`). Each form is matched explicitly: `Date.parse` alone accepts far too much
 * (`"1"`, `"foo 2020"`), which would silently set nonsense expiries.
 */
const isoDateOnly = /^(\d{4})-(\d{2})-(\d{2})$/;
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const jsLongForm =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4}( \([^()]*\))?$/;

export const EXTENSION_MS = 90 * 24 * 3600_000;

/** The instant `latestDate` names, or null when it is not one of the accepted forms (or not a real date). */
export function parseLatestDate(value: string): Date | null {
  const text = value.trim();
  const dateOnly = isoDateOnly.exec(text);
  if (dateOnly) {
    const date = new Date(`${text}T00:00:00Z`);
    // Reject calendar impossibilities such as 2025-02-30, which Date would roll into March.
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text ? date : null;
  }
  if (isoDateTime.test(text) || jsLongForm.test(text)) {
    // The long form's "(zone name)" is a comment; V8 parses the form with or without it.
    const date = new Date(text.replace(/ \([^()]*\)$/, ''));
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}

/** The new expiry after `updateExpiresAt`: 90 days after the supplied date. */
export function extendedExpiry(latestDate: Date): Date {
  return new Date(latestDate.getTime() + EXTENSION_MS);
}

/** Default lifetime of a new binding: one calendar year. */
export function defaultExpiry(now: Date): Date {
  const expiry = new Date(now.getTime());
  expiry.setUTCFullYear(expiry.getUTCFullYear() + 1);
  return expiry;
}
