import type { AtsAccount, AtsCredential } from '@quarry/hosted-form-apply';
import {
  AppError,
  AtsAccountSecret,
  atsAccountVendors,
  AtsCredentialBody,
  AtsCredentialParams,
  AtsCredentialVendor,
  describeIssues,
  validationError,
  type AtsCredentialList,
  type AtsCredentialSummary,
} from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { atsCredentialRow, sealedColumns } from '@quarry/keyring';
import { detectAts, workdayBoardOf, type AtsTarget } from '@quarry/miner';
import type { Sealer } from './applications-ports.ts';
import {
  deleteAtsCredential,
  findSealedAtsKey,
  listAtsCredentials,
  upsertAtsCredential,
  type StoredAtsCredential,
} from './ats-credentials.queries.ts';

type CredentialPorts = { pool: Queryable; sealer: Pick<Sealer, 'seal' | 'open'> };

const summary = (row: StoredAtsCredential): AtsCredentialSummary => ({
  ats: AtsCredentialVendor.parse(row.ats),
  board: row.board,
  createdAt: row.createdAt.toISOString(),
});

/** POST /v1/recruitment/ats-credentials: stores the employer's key for one board, sealed; a repeat replaces it. */
export async function registerAtsCredential(ports: CredentialPorts, clientId: string, body: unknown): Promise<AtsCredentialSummary> {
  const parsed = AtsCredentialBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const { ats, board, key, email, password } = parsed.data;
  // A tenant account is kept as one sealed secret, like a key.
  const secret = atsAccountVendors.includes(ats) ? JSON.stringify(AtsAccountSecret.parse({ email, password })) : String(key);
  return summary(
    await upsertAtsCredential(ports.pool, {
      clientId,
      ats,
      board,
      keySealed: ports.sealer.seal(sealedColumns.atsCredential, atsCredentialRow(clientId, ats, board), secret),
    }),
  );
}

/** GET /v1/recruitment/ats-credentials: the client's boards with a key (never the keys). */
export async function listClientAtsCredentials(ports: CredentialPorts, clientId: string): Promise<AtsCredentialList> {
  return { credentials: (await listAtsCredentials(ports.pool, clientId)).map(summary) };
}

/** DELETE /v1/recruitment/ats-credentials/:ats/:board: later applications to that board use the hosted form. */
export async function removeAtsCredential(ports: CredentialPorts, clientId: string, params: unknown): Promise<void> {
  const parsed = AtsCredentialParams.safeParse(params);
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  if (!(await deleteAtsCredential(ports.pool, clientId, parsed.data.ats, parsed.data.board))) {
    throw new AppError('NotFound', `No ${parsed.data.ats} credentials for board ${parsed.data.board}`);
  }
}

/** The board a vendor key is registered for, as the posting URL names it. */
function boardOf(target: AtsTarget): { ats: AtsCredentialVendor; board: string } | null {
  switch (target.ats) {
    case 'greenhouse':
      return target.board ? { ats: 'greenhouse', board: target.board.toLowerCase() } : null;
    case 'lever':
      return { ats: 'lever', board: target.site.toLowerCase() };
    case 'ashby':
      return { ats: 'ashby', board: target.org.toLowerCase() };
    case 'workable':
      return target.account ? { ats: 'workable', board: target.account.toLowerCase() } : null;
    case 'smartrecruiters':
      return { ats: 'smartrecruiters', board: target.company.toLowerCase() };
    case 'bamboohr':
    case 'jazzhr':
    case 'breezy':
      return { ats: target.ats, board: target.company.toLowerCase() };
    case 'teamtailor': {
      // acme.teamtailor.com (or acme.na.teamtailor.com): the company is the first label.
      const company = target.host.split('.')[0];
      return company ? { ats: 'teamtailor', board: company.toLowerCase() } : null;
    }
    default:
      return null;
  }
}

/** The client's key for the ATS board of a posting URL, opened for the engine; null when there is none. */
export async function findAtsCredential(ports: CredentialPorts, clientId: string, url: string): Promise<AtsCredential | null> {
  const target = detectAts(url);
  const vendorBoard = target ? boardOf(target) : null;
  if (!vendorBoard) return null;
  const sealed = await findSealedAtsKey(ports.pool, clientId, vendorBoard.ats, vendorBoard.board);
  return sealed
    ? {
        ...vendorBoard,
        key: ports.sealer.open(sealedColumns.atsCredential, atsCredentialRow(clientId, vendorBoard.ats, vendorBoard.board), sealed),
      }
    : null;
}

/**
 * The client's candidate account on the posting's Workday tenant, opened for the hosted form (it
 * signs in with it on that board only: the tenant's host, or `wd{N}.myworkdaysite.com/{tenant}`);
 * null when there is none.
 */
export async function findAtsAccount(ports: CredentialPorts, clientId: string, url: string): Promise<AtsAccount | null> {
  const board = workdayBoardOf(url);
  if (!board) return null;
  const sealed = await findSealedAtsKey(ports.pool, clientId, 'workday', board);
  if (!sealed) return null;
  const secret = AtsAccountSecret.parse(
    JSON.parse(ports.sealer.open(sealedColumns.atsCredential, atsCredentialRow(clientId, 'workday', board), sealed)),
  );
  return { ats: 'workday', board, ...secret };
}
