/**
 * Workday's two kinds of posting address. A tenant of its own host,
 * `{tenant}.wd{N}.myworkdayjobs.com/{locale}/{site}/job/…`, and the shared hosts that name the
 * tenant in the path, `wd{N}.myworkdaysite.com/{locale}/recruiting/{tenant}/{site}/job/…` (the
 * locale is optional on both). Candidate accounts are per tenant, so the board an account is
 * registered for, and the one a page is on, is the tenant's host on the first kind and
 * `wd{N}.myworkdaysite.com/{tenant}` on the second: the host alone would let one tenant's
 * password be typed on every tenant sharing it.
 */
const workdayHosts = /(^|\.)myworkdayjobs\.com$|(^|\.)myworkdaysite\.com$/i;

const ownHost = /(^|\.)myworkdayjobs\.com$/i;
// `/recruiting/{tenant}/`, after an optional locale (`/en-US`).
const tenantInPath = /^\/(?:[a-z]{2}(?:-[a-z]{2,4})?\/)?recruiting\/([a-z0-9_-]+)(?:\/|$)/i;

/**
 * The board a page of a Workday application is on: its host, or host and tenant when the path
 * names the tenant (`/recruiting/{tenant}/…` on any host but a tenant's own, so the shared hosts
 * and whatever serves their pages under another name). Lowercase.
 */
export function workdayBoardOfPage(url: URL): string {
  const host = url.host.toLowerCase();
  const tenant = ownHost.test(url.hostname) ? null : tenantInPath.exec(url.pathname)?.[1];
  return tenant ? `${host}/${tenant.toLowerCase()}` : host;
}

/**
 * The Workday board of a posting URL, as the client registers its account for it
 * (`acme.wd5.myworkdayjobs.com`, `wd5.myworkdaysite.com/acme`); null when the URL is not
 * Workday's, or names no tenant on a shared host.
 */
export function workdayBoardOf(url: string): string | null {
  const parsed = URL.parse(url);
  if (!parsed || !workdayHosts.test(parsed.hostname)) return null;
  const board = workdayBoardOfPage(parsed);
  return ownHost.test(parsed.hostname) || board.includes('/') ? board : null;
}
