import { z } from 'zod';
import { Scope } from './scopes.ts';

export const ClientId = z.string().regex(/^cl_[a-z0-9]{20}$/, 'must be a client id like cl_…');

export const ClientSummary = z.object({
  clientId: ClientId,
  name: z.string(),
  scopes: z.array(Scope),
  createdAt: z.iso.datetime(),
  revokedAt: z.string().nullable(),
});
export type ClientSummary = z.infer<typeof ClientSummary>;

/** GET /v1/admin/clients: every client, revoked ones included. */
export const ClientSummaries = z.array(ClientSummary);

/** Shown exactly once, when the client is created; only hashes and ciphertext are kept. */
export const CreatedClient = z.object({
  clientId: ClientId,
  secret: z.string(),
  jwtSecret: z.string(),
});
export type CreatedClient = z.infer<typeof CreatedClient>;

export const CreateClientInput = z.object({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(Scope).min(1),
});

export const WhoAmI = z.object({ clientId: ClientId, name: z.string(), scopes: z.array(Scope) });
export type WhoAmI = z.infer<typeof WhoAmI>;
