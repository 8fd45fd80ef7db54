export { createAuthenticator } from './authenticator.ts';
export type { AuthenticatedClient, Authenticator, AuthenticatorOptions, FailedAttempts } from './authenticator.ts';
export { clientFrameOrigins, createClient, findFrameOrigins, listClients, revokeClient, setFrameOrigins } from './client-admin.ts';
export type { ClientAdminPorts } from './client-admin.ts';
export { createSessionCodec, dashboardSessionCookie, sameToken } from './dashboard-session.ts';
export type { DashboardSession, SessionCodec } from './dashboard-session.ts';
