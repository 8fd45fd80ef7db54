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

const loopbackHost = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/**
 * An origin of a client's own pages (`https://booking.example.com`, a port if not 443): scheme,
 * host and port only, as browsers compare them. `http:` only on this machine's loopback (a page in
 * development), since what the page frames is a card holder's challenge.
 */
const FrameOrigin = z
  .string()
  .max(300)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        url.origin === value &&
        (url.protocol === 'https:' || (url.protocol === 'http:' && loopbackHost.test(url.host.replace(/:\d+$/, ''))))
      );
    } catch {
      return false;
    }
  }, 'must be an origin such as https://booking.example.com (scheme, host and port; no path, no trailing slash; http: on loopback only)');

/** `PUT /v1/admin/clients/{clientId}/frame-origins`: the origins that may frame the client's 3-D Secure pages; [] for none. */
export const SetFrameOriginsBody = z.strictObject({ origins: z.array(FrameOrigin).max(20) });
export const FrameOriginsView = z.object({ clientId: ClientId, origins: z.array(z.string()) });
export type FrameOriginsView = z.infer<typeof FrameOriginsView>;
export const ClientIdParams = z.object({ clientId: ClientId });
