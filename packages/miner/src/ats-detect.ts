/** Which ATS serves a posting URL, and the identifiers its form definition is keyed by. */
export type AtsTarget =
  | { ats: 'greenhouse'; board: string | null; jobId: string }
  | { ats: 'lever'; host: string; site: string; postingId: string }
  | { ats: 'ashby'; org: string; postingId: string }
  | { ats: 'workable'; account: string | null; shortcode: string }
  | { ats: 'smartrecruiters'; company: string; postingId: string }
  | { ats: 'bamboohr'; company: string; jobId: string }
  | { ats: 'recruitee'; company: string; slug: string }
  | { ats: 'teamtailor'; host: string; jobPath: string }
  | { ats: 'jazzhr'; company: string; jobPath: string }
  | { ats: 'breezy'; company: string; posting: string }
  | { ats: 'manatal'; org: string; jobHash: string };

export type AtsName = AtsTarget['ats'];

const greenhouseHosts = /^(job-boards|boards)(\.eu)?\.greenhouse\.io$/;

function segments(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter(Boolean)
    .map((segment) => decodeURIComponent(segment));
}

function subdomain(host: string, domain: string): string | null {
  const match = new RegExp(`^([a-z0-9-]+)(\\.[a-z]{2})?\\.${domain.replaceAll('.', '\\.')}$`).exec(host);
  return match?.[1] && match[1] !== 'www' ? match[1] : null;
}

/**
 * Recognises the ATS from host and path patterns. Null means "no adapter": the generic
 * page miner takes it. Only well-formed identifiers are accepted, so a careers-site home page or a
 * job list does not reach an adapter that would only 404.
 */
export function detectAts(input: string): AtsTarget | null {
  const url = URL.parse(input);
  if (!url) return null;
  const host = url.hostname.toLowerCase();
  const path = segments(url);

  if (greenhouseHosts.test(host)) {
    if (path[0] === 'embed' && path[1] === 'job_app') {
      const token = url.searchParams.get('token');
      return token && /^\d+$/.test(token) ? { ats: 'greenhouse', board: url.searchParams.get('for'), jobId: token } : null;
    }
    const [board, jobs, jobId] = path;
    if (board && jobs === 'jobs' && jobId && /^\d+$/.test(jobId)) return { ats: 'greenhouse', board, jobId };
    return null;
  }
  const ghJobId = url.searchParams.get('gh_jid');
  if (ghJobId && /^\d+$/.test(ghJobId)) return { ats: 'greenhouse', board: null, jobId: ghJobId };

  if (host === 'jobs.lever.co' || host === 'jobs.eu.lever.co') {
    const [site, postingId] = path;
    if (site && postingId && /^[0-9a-f-]{36}$/i.test(postingId)) return { ats: 'lever', host, site, postingId };
    return null;
  }
  if (host === 'jobs.ashbyhq.com') {
    const [org, postingId] = path;
    if (org && postingId && /^[0-9a-f-]{36}$/i.test(postingId)) return { ats: 'ashby', org, postingId };
    return null;
  }
  if (host === 'apply.workable.com') {
    const index = path.indexOf('j');
    const shortcode = index >= 0 ? path[index + 1] : undefined;
    // The account is named only by the long link (`/{account}/j/{shortcode}`), not by `/j/{shortcode}`.
    const account = index > 0 ? (path[index - 1] ?? null) : null;
    return shortcode && /^[0-9A-Z]{6,12}$/i.test(shortcode) ? { ats: 'workable', account, shortcode: shortcode.toUpperCase() } : null;
  }
  if (host === 'jobs.smartrecruiters.com') {
    const [company, posting] = path;
    const postingId = /^(\d{6,})(-|$)/.exec(posting ?? '')?.[1];
    return company && postingId ? { ats: 'smartrecruiters', company, postingId } : null;
  }
  const bamboo = subdomain(host, 'bamboohr.com');
  if (bamboo) {
    const index = path.indexOf('careers');
    const jobId = index >= 0 ? path[index + 1] : undefined;
    return jobId && /^\d+$/.test(jobId) ? { ats: 'bamboohr', company: bamboo, jobId } : null;
  }
  const recruitee = subdomain(host, 'recruitee.com');
  if (recruitee) {
    const index = path.indexOf('o');
    const slug = index >= 0 ? path[index + 1] : undefined;
    return slug ? { ats: 'recruitee', company: recruitee, slug } : null;
  }
  if (/^[a-z0-9-]+(\.[a-z]{2})?\.teamtailor\.com$/.test(host)) {
    const index = path.indexOf('jobs');
    const job = index >= 0 ? path[index + 1] : undefined;
    return job && /^\d+/.test(job) ? { ats: 'teamtailor', host, jobPath: path.slice(0, index + 2).join('/') } : null;
  }
  const jazz = subdomain(host, 'applytojob.com');
  if (jazz) {
    const [apply, jobId, slug] = path;
    return apply === 'apply' && jobId ? { ats: 'jazzhr', company: jazz, jobPath: [apply, jobId, slug].filter(Boolean).join('/') } : null;
  }
  const breezy = subdomain(host, 'breezy.hr');
  if (breezy) {
    const [p, posting] = path;
    return p === 'p' && posting && /^[0-9a-f]{8,}/i.test(posting) ? { ats: 'breezy', company: breezy, posting } : null;
  }
  if (host === 'careers-page.com' || host === 'www.careers-page.com') {
    const [org, job, jobHash] = path;
    return org && job === 'job' && jobHash ? { ats: 'manatal', org, jobHash } : null;
  }
  return null;
}
