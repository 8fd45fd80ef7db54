import { z } from 'zod';
import { ConfigError } from '../config-error.ts';
import type { VariablesOf } from './section.ts';

export const dashboardVariables = {
  // Dashboard single sign-on (OIDC, authorization code + PKCE); all of the first five or none.
  DASHBOARD_OIDC_ISSUER: z.url().optional(),
  DASHBOARD_OIDC_CLIENT_ID: z.string().min(1).optional(),
  DASHBOARD_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  DASHBOARD_OIDC_ADMIN_CLIENT_ID: z
    .string()
    .regex(/^cl_[a-z0-9]{20}$/, 'must be a client id (cl_…)')
    .optional(),
  DASHBOARD_PUBLIC_URL: z.url().optional(),
  DASHBOARD_OIDC_ALLOWED_EMAILS: z.string().default(''),
};
const oidcVariables = [
  'DASHBOARD_OIDC_ISSUER',
  'DASHBOARD_OIDC_CLIENT_ID',
  'DASHBOARD_OIDC_CLIENT_SECRET',
  'DASHBOARD_OIDC_ADMIN_CLIENT_ID',
  'DASHBOARD_PUBLIC_URL',
] as const;

export const readDashboard = (vars: VariablesOf<typeof dashboardVariables>) => {
  const oidcSet = oidcVariables.filter((name) => vars[name] !== undefined);
  if (oidcSet.length > 0 && oidcSet.length < oidcVariables.length) {
    throw new ConfigError(
      oidcVariables
        .filter((name) => vars[name] === undefined)
        .map((name) => `${name} is required when dashboard single sign-on is configured`),
    );
  }
  /** Dashboard single sign-on (OIDC); undefined: signing in with a client secret only. */
  const dashboardOidc =
    vars.DASHBOARD_OIDC_ISSUER &&
    vars.DASHBOARD_OIDC_CLIENT_ID &&
    vars.DASHBOARD_OIDC_CLIENT_SECRET &&
    vars.DASHBOARD_OIDC_ADMIN_CLIENT_ID &&
    vars.DASHBOARD_PUBLIC_URL
      ? {
          issuer: vars.DASHBOARD_OIDC_ISSUER,
          clientId: vars.DASHBOARD_OIDC_CLIENT_ID,
          clientSecret: vars.DASHBOARD_OIDC_CLIENT_SECRET,
          /** The Quarry admin client that single-sign-on users act as (its scopes decide what they may do). */
          adminClientId: vars.DASHBOARD_OIDC_ADMIN_CLIENT_ID,
          /** Where the dashboard is reached from browsers, e.g. https://quarry.example.com */
          publicUrl: vars.DASHBOARD_PUBLIC_URL.replace(/\/$/, ''),
          /** Emails (`ops@example.com`) or domains (`@example.com`) allowed in; empty: anyone the provider signs in. */
          allowedEmails: vars.DASHBOARD_OIDC_ALLOWED_EMAILS.split(',')
            .map((entry) => entry.trim().toLowerCase())
            .filter(Boolean),
        }
      : undefined;
  return { dashboardOidc };
};
