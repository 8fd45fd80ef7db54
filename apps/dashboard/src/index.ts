export { dashboardRoutes } from './dashboard.routes.ts';
export type { DashboardDeps } from './dashboard.routes.ts';
export type { OidcSettings } from './oidc-sign-in.routes.ts';
