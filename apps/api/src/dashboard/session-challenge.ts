import { dashboardSessionCookie } from '@quarry/auth';

/**
 * What the dashboard's 401s name in `WWW-Authenticate` (RFC 9110 §11.6.1): its sign-in form and
 * session cookie. Not Basic: a Basic challenge would make browsers open their own prompt.
 */
export const sessionChallenge = `Cookie realm="quarry dashboard", form-action="/dashboard/login", cookie-name="${dashboardSessionCookie}"`;
