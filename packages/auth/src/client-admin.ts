import { randomBytes } from 'node:crypto';
import {
  AppError,
  ClientId,
  CreateClientInput,
  describeIssues,
  SetFrameOriginsBody,
  validationError,
  type ClientSummary,
  type CreatedClient,
  type FrameOriginsView,
} from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import { createSealer, sealedColumns, type Keyring } from '@quarry/keyring';
import {
  findFrameOriginsRow,
  insertClient,
  listClients as listClientRows,
  revokeClient as revokeClientRow,
  updateFrameOriginsRow,
  type ClientRow,
} from './clients.queries.ts';
import { hashSecret, randomToken } from './secret-crypto.ts';

/** `secretKey` keys the secret's hash; the keyring (default: QUARRY_SECRET_KEY's alone) seals the JWT secret. */
export type ClientAdminPorts = { db: Queryable; secretKey: Buffer; keyring?: Keyring | undefined };

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
  const clientId = newClientId();
  const row = await insertClient(ports.db, {
    clientId,
    name: parsed.data.name,
    scopes: [...new Set(parsed.data.scopes)],
    secretHash: hashSecret(ports.secretKey, secret),
    jwtSecretCiphertext: createSealer(ports.secretKey, ports.keyring).seal(sealedColumns.clientJwtSecret, clientId, jwtSecret),
  });
  return { clientId: row.clientId, secret, jwtSecret };
}

export async function listClients(ports: Pick<ClientAdminPorts, 'db'>): Promise<ClientSummary[]> {
  return (await listClientRows(ports.db)).map(toSummary);
}

export async function revokeClient(ports: Pick<ClientAdminPorts, 'db'>, clientId: string): Promise<boolean> {
  return revokeClientRow(ports.db, clientId);
}

function parseClientId(clientId: unknown): string {
  const parsed = ClientId.safeParse(clientId);
  if (!parsed.success) throw validationError(describeIssues(parsed.error, 'clientId'));
  return parsed.data;
}

/**
 * The origins of the client's own pages that may frame its 3-D Secure pages (`frame-ancestors`)
 * and receive their completion message; none: no page may frame them.
 */
export async function findFrameOrigins(ports: Pick<ClientAdminPorts, 'db'>, clientId: unknown): Promise<FrameOriginsView> {
  const id = parseClientId(clientId);
  const origins = await findFrameOriginsRow(ports.db, id);
  if (origins === null) throw new AppError('NotFound', `no active client ${id}`);
  return { clientId: id, origins };
}

/** The frame origins of the authenticated client (none when it was revoked meanwhile). */
export async function clientFrameOrigins(ports: Pick<ClientAdminPorts, 'db'>, clientId: string): Promise<string[]> {
  return (await findFrameOriginsRow(ports.db, clientId)) ?? [];
}

/** Operator: replaces the client's frame origins (`{"origins": []}` clears them). */
export async function setFrameOrigins(ports: Pick<ClientAdminPorts, 'db'>, clientId: unknown, body: unknown): Promise<FrameOriginsView> {
  const id = parseClientId(clientId);
  const parsed = SetFrameOriginsBody.safeParse(body);
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const origins = await updateFrameOriginsRow(ports.db, id, [...new Set(parsed.data.origins)]);
  if (origins === null) throw new AppError('NotFound', `no active client ${id}`);
  return { clientId: id, origins };
}
