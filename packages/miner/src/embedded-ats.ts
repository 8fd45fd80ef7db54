import { load } from 'cheerio/slim';
import { detectAts } from './ats-detect.ts';

/**
 * A careers page without a form of its own often embeds the ATS form in an iframe or links to it
 * ("Apply" → jobs.lever.co/…/apply). Returns that posting's URL when the page points at exactly one
 * ATS posting (an iframe wins over links); a job list linking to several postings is not guessed.
 */
export function findEmbeddedPosting(html: string, pageUrl: string): string | null {
  const $ = load(html);
  const resolve = (raw: string | undefined): string | null => {
    if (!raw) return null;
    try {
      const url = new URL(raw, pageUrl).href;
      return detectAts(url) ? url : null;
    } catch {
      return null;
    }
  };
  const frames = $('iframe[src]')
    .toArray()
    .flatMap((frame) => resolve($(frame).attr('src')) ?? []);
  if (frames[0]) return frames[0];
  const links = new Set(
    $('a[href]')
      .toArray()
      .flatMap((link) => resolve($(link).attr('href')) ?? []),
  );
  return links.size === 1 ? ([...links][0] ?? null) : null;
}
