import { describe, expect, it } from 'vitest';
import { ApplyBody, FileAnswer } from './applications.ts';
import { CreateBookingBody } from './bookings.ts';
import { httpUrlMaxLength } from './http-url.ts';
import { BatchFileUrlBody, JobPostInput } from './recruitment.ts';

const urlOfLength = (length: number) => {
  const start = 'https://example.com/';
  return start + 'p'.repeat(length - start.length);
};

/** Every request field that takes a page or file URL, as one parse of its body. */
const fields: Array<[string, (url: string) => boolean]> = [
  ['a job post url', (url) => JobPostInput.safeParse({ jobPostId: 'p1', url, employer: 'Acme', jobTitle: 'Engineer' }).success],
  ['a batch fileUrl', (url) => BatchFileUrlBody.safeParse({ fileUrl: url }).success],
  ['a File answer url', (url) => FileAnswer.safeParse({ type: 'File', url, filename: 'cv.pdf' }).success],
  [
    'an application apply page',
    (url) =>
      ApplyBody.safeParse({
        jobPostId: 'p1',
        candidate: { email: 'a@example.com', firstName: 'A', lastName: 'B' },
        files: { cv: { type: 'File', url: 'https://example.com/cv.pdf', filename: 'cv.pdf' } },
        url,
      }).success,
  ],
  [
    'a booking callbackUrl',
    (url) =>
      CreateBookingBody.safeParse({
        hotelId: 'h1',
        checkIn: '2027-01-10',
        nights: 1,
        guests: 1,
        roomId: 'r',
        rateId: 'r',
        callbackUrl: url,
      }).success,
  ],
];

describe('the http(s) URL of every request field', () => {
  it.each(fields)('%s takes a URL of the shared limit and refuses one longer', (_field, accepts) => {
    expect(accepts(urlOfLength(httpUrlMaxLength))).toBe(true);
    expect(accepts(urlOfLength(httpUrlMaxLength + 1))).toBe(false);
    expect(accepts(urlOfLength(4096))).toBe(false);
  });

  it.each(fields)('%s refuses a NUL, a relative URL and another scheme', (_field, accepts) => {
    expect(accepts('https://example.com/a\u0000b')).toBe(false);
    expect(accepts('/jobs/1')).toBe(false);
    expect(accepts('ftp://example.com/cv.pdf')).toBe(false);
  });
});
