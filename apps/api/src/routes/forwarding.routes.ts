import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import {
  AppError,
  BindBody,
  ForwardingResponse,
  LoadOutlookAccountsBody,
  LoadOutlookAccountsResult,
  MailboxAccountsView,
  OutlookAccount,
  RecipientBody,
  RetrieveOutlookAccountBody,
  UpdateBindingBody,
  UpdateExpiresAtBody,
} from '@quarry/contracts';
import type { Pool, Queryable } from '@quarry/db';
import type { ColumnSealer } from '@quarry/keyring';
import {
  bind,
  deleteBinding,
  getBinding,
  listMailboxAccounts,
  loadOutlookAccounts,
  retrieveOutlookAccount,
  updateBinding,
  updateExpiresAt,
  type AccountPorts,
} from '@quarry/mail';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Forwarding bindings (the interface's email forwarding endpoints): POST + JSON, tenant-scoped. */
export function forwardingRoutes(deps: {
  authenticator: Authenticator;
  db: Queryable;
  mailDomains?: readonly string[];
  accountSealer?: ColumnSealer;
}): Router {
  const router = Router();
  const forwarding = requireClient(deps.authenticator, { scope: 'forwarding' });
  const ports = { db: deps.db, now: () => new Date(), domains: deps.mailDomains ?? ['localhost'] };
  router.post('/Forwarding/bind', forwarding, async (request, response) => {
    response.json(await bind(ports, clientOf(response).clientId, request.body));
  });
  router.post('/Forwarding/updateBinding', forwarding, async (request, response) => {
    response.json(await updateBinding(ports, clientOf(response).clientId, request.body));
  });
  router.post('/Forwarding/updateExpiresAt', forwarding, async (request, response) => {
    response.json(await updateExpiresAt(ports, clientOf(response).clientId, request.body));
  });
  router.post('/Forwarding/deleteBinding', forwarding, async (request, response) => {
    response.json(await deleteBinding(ports, clientOf(response).clientId, request.body));
  });
  // Not in the published interface: the owner's read of one binding and its counters.
  router.get('/Forwarding/binding', forwarding, async (request, response) => {
    response.json(await getBinding(ports, clientOf(response).clientId, { recipient: request.query.recipient }));
  });

  // The outlook-account pool needs the deployment's sealer (accounts are stored sealed) and a pool
  // for its transaction; without them (tests of other surfaces) the endpoints answer 503.
  const accountPorts = (): AccountPorts => {
    const sealer = deps.accountSealer;
    if (!sealer || !('connect' in deps.db)) throw new AppError('ServiceUnavailable', 'the account pool is not configured');
    return {
      pool: deps.db as Pool,
      seal: sealer.seal,
      open: sealer.open,
      domains: ports.domains,
      now: () => new Date(),
    };
  };
  router.post('/email/retrieve-outlook-account', forwarding, async (request, response) => {
    response.json(await retrieveOutlookAccount(accountPorts(), clientOf(response).clientId, request.body));
  });
  router.post('/v1/admin/mail/outlook-accounts', requireClient(deps.authenticator, { scope: 'admin' }), async (request, response) => {
    response.json(await loadOutlookAccounts(accountPorts(), request.body));
  });
  router.get('/v1/admin/mail/outlook-accounts', requireClient(deps.authenticator, { scope: 'admin' }), async (_request, response) => {
    response.json(await listMailboxAccounts({ db: deps.db }));
  });
  return router;
}

export function describeForwardingRoutes(registry: OpenAPIRegistry): void {
  const post = (
    path: string,
    summary: string,
    schema: typeof BindBody | typeof UpdateBindingBody | typeof UpdateExpiresAtBody | typeof RecipientBody,
    errors: number[],
  ) =>
    registry.registerPath({
      method: 'post',
      path,
      summary,
      tags: ['Email forwarding'],
      security: securedBy,
      request: { body: { content: { 'application/json': { schema } } } },
      responses: {
        200: {
          description: 'Done; `message` says what happened and `binding` is the binding as it now is',
          content: { 'application/json': { schema: ForwardingResponse } },
        },
        ...errorResponses(errors),
      },
    });
  post('/Forwarding/bind', 'Create a binding: mail to recipient is forwarded to forwardsTo for one year', BindBody, [400, 401, 403, 409]);
  post(
    '/Forwarding/updateBinding',
    'Change the destination (and keepSender) of an existing binding',
    UpdateBindingBody,
    [400, 401, 403, 404],
  );
  post('/Forwarding/updateExpiresAt', 'Set the expiry to 90 days after latestDate', UpdateExpiresAtBody, [400, 401, 403, 404]);
  post('/Forwarding/deleteBinding', 'Delete a binding; mail to the recipient is refused from now on', RecipientBody, [400, 401, 403, 404]);
  registry.registerPath({
    method: 'post',
    path: '/email/retrieve-outlook-account',
    summary: 'Hand out one unused mailbox account from the pool; mail to `alias` is forwarded to forwardsTo',
    tags: ['Email forwarding'],
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: RetrieveOutlookAccountBody } } } },
    responses: {
      200: { description: 'The account, never handed to anyone else', content: { 'application/json': { schema: OutlookAccount } } },
      ...errorResponses([400, 401, 403, 409, 503]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/admin/mail/outlook-accounts',
    summary:
      "Operator: load mailbox accounts into the pool (stored encrypted); each is logged in to once, and those that cannot be read are refused with the server's answer",
    tags: ['Operations'],
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: LoadOutlookAccountsBody } } } },
    responses: {
      200: { description: 'Loaded', content: { 'application/json': { schema: LoadOutlookAccountsResult } } },
      ...errorResponses([400, 401, 403]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/mail/outlook-accounts',
    summary: 'Operator: the pooled mailbox accounts, broken and failing ones first (state, last message, last error, watching process)',
    tags: ['Operations'],
    security: securedBy,
    responses: {
      200: { description: 'The pool', content: { 'application/json': { schema: MailboxAccountsView } } },
      ...errorResponses([401, 403]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/Forwarding/binding',
    summary: 'One of your bindings with its counters (received, delivered, bounced, last delivery)',
    tags: ['Email forwarding'],
    security: securedBy,
    request: { query: RecipientBody },
    responses: {
      200: { description: 'The binding', content: { 'application/json': { schema: ForwardingResponse } } },
      ...errorResponses([400, 401, 403, 404]),
    },
  });
}
