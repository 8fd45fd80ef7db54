export { AppError, errorCatalog, renderError, validationError } from './errors.ts';
export type { ErrorCode, ErrorDetails, ErrorSurface, QuestionsErrorBody, StandardErrorBody } from './errors.ts';
export { Scope, scopes } from './scopes.ts';
export { describeIssues } from './zod-messages.ts';
export { ClientId, ClientSummary, CreateClientInput, CreatedClient, WhoAmI } from './clients.ts';
export { CanaryJobPayload, CanaryState, CanaryView, RequestCanaryBody } from './canary.ts';
