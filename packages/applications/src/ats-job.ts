import { detectAts, type AtsTarget } from '@quarry/miner';

/** The part of a target that names the job within its ATS (ids are global where the vendor's are). */
function jobOf(target: AtsTarget): string {
  switch (target.ats) {
    case 'greenhouse':
      return target.jobId;
    case 'lever':
    case 'ashby':
      return target.postingId.toLowerCase();
    case 'workable':
      return target.shortcode;
    case 'smartrecruiters':
      return `${target.company.toLowerCase()}:${target.postingId}`;
    case 'bamboohr':
      return `${target.company}:${target.jobId}`;
    case 'recruitee':
      return `${target.company}:${target.slug}`;
    case 'teamtailor':
      // `jobs/123-title`: the number is the job, the title may change.
      return `${target.host}:${/jobs\/(\d+)/.exec(target.jobPath)?.[1] ?? target.jobPath}`;
    case 'jazzhr':
      return `${target.company}:${target.jobPath.split('/')[1] ?? target.jobPath}`;
    case 'breezy':
      return `${target.company}:${/^[0-9a-f]+/i.exec(target.posting)?.[0]?.toLowerCase() ?? target.posting}`;
    case 'manatal':
      return `${target.org}:${target.jobHash}`;
  }
}

/**
 * The job an application goes to, as its ATS identifies it: the key of the AlreadyApplied rule
 * (with the client and the candidate's email), so two job posts naming the same vendor job are
 * one job. A page no adapter knows is keyed by its address without query or fragment.
 */
export function atsJobKey(url: string | null, jobPostId: string): string {
  if (!url) return `post:${jobPostId}`;
  const target = detectAts(url);
  if (target) return `${target.ats}:${jobOf(target)}`;
  try {
    const page = new URL(url);
    return `page:${page.hostname.toLowerCase()}${page.pathname.replace(/\/+$/, '')}`;
  } catch {
    return `post:${jobPostId}`;
  }
}
