import { randomBytes } from 'node:crypto';
import { CreateClientInput, describeIssues, validationError, type ClientSummary, type CreatedClient } from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import { insertClient, listClients as listClientRows, revokeClient as revokeClientRow, type ClientRow } from './clients.queries.ts';
import { encryptSecret, hashSecret, randomToken } from './secret-crypto.ts';

export type ClientAdminPorts = { db: Queryable; secretKey: Buffer };

const idAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

function newClientId(): string {
  const bytes = randomBytes(20);
  return `cl_${[...bytes].map((byte) => idAlphabet[byte % idAlphabet.length]).join('')}`;
}

function toSummary(row: ClientRow): ClientSummary {
  return {
    clientId: row.clientId,
    name: row.name,
    scopes: row.scopes as ClientSummary['scopes'],
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a tenant. The secret and JWT secret are returned this once and never again. */
export async function createClient(ports: ClientAdminPorts, input: unknown): Promise<CreatedClient> {
  const parsed = CreateClientInput.safeParse(input);
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const secret = randomToken('qs_');
  const jwtSecret = randomToken('qj_');
  const row = await insertClient(ports.db, {
    clientId: newClientId(),
    name: parsed.data.name,
    scopes: [...new Set(parsed.data.scopes)],
    secretHash: hashSecret(ports.secretKey, secret),
    jwtSecretCiphertext: encryptSecret(ports.secretKey, jwtSecret),
  });
  return { clientId: row.clientId, secret, jwtSecret };
}

export async function listClients(ports: Pick<ClientAdminPorts, 'db'>): Promise<ClientSummary[]> {
  return (await listClientRows(ports.db)).map(toSummary);
}

export async function revokeClient(ports: Pick<ClientAdminPorts, 'db'>, clientId: string): Promise<boolean> {
  return revokeClientRow(ports.db, clientId);
}
