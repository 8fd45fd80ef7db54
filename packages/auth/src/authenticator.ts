import { createHash } from 'node:crypto';
import { AppError, type Scope } from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import { findActiveClientById, findActiveClientBySecretHash, type ClientRow } from './clients.queries.ts';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { SessionCodec } from './dashboard-session.ts';
import { createSealer, sealedColumns, type Keyring } from '@quarry/keyring';
import { hashSecret } from './secret-crypto.ts';

export type AuthenticatedClient = { clientId: string; name: string; scopes: Scope[] };

/**
 * Counts failed authentications per client address and per client id across every process (a
 * Redis limiter in production). `record` answers how many seconds the caller must wait when
 * this failure went over a limit, or null while it is within.
 */
export type FailedAttempts = {
  record(keys: { address?: string | undefined; clientId?: string | undefined }): Promise<number | null>;
};

export type Authenticator = {
  /**
   * The client behind an `Authorization` header, or null when it is missing or not valid. A
   * failure over the limit of its address or client is an AppError `TooManyRequests`; a
   * success is never counted nor slowed.
   */
  authenticate(authorization: string | undefined, context?: { address?: string | undefined }): Promise<AuthenticatedClient | null>;
  /** The still-active client of a verified dashboard session. */
  clientById(clientId: string): Promise<AuthenticatedClient | null>;
  /** Dashboard sessions, when this deployment serves the dashboard. */
  sessions: SessionCodec | undefined;
};

export type AuthenticatorOptions = {
  db: Queryable;
  /** Keys the client-secret hashes (and, without `keyring`, the keyring a deployment with only it has). */
  secretKey: Buffer;
  /** Opens clients' JWT secrets; default: the keyring of QUARRY_SECRET_KEY alone. */
  keyring?: Keyring | undefined;
  /** How long a verified credential is trusted without asking Postgres again (revocation delay). */
  cacheMs: number;
  jwks?: { url: string; issuer?: string | undefined; audience?: string | undefined } | undefined;
  sessions?: SessionCodec | undefined;
  /** Failed-attempt limits; without them failures are only answered, never limited. */
  failedAttempts?: FailedAttempts | undefined;
  now?: () => number;
};

const clientIdPattern = /^cl_[a-z0-9]{20}$/;

/** The client a Bearer token claims to be (unverified): its failures count against that client. */
function claimedClientId(scheme: string, credential: string): string | undefined {
  if (scheme.toLowerCase() !== 'bearer') return undefined;
  try {
    const subject = decodeJwt(credential).sub;
    return subject && clientIdPattern.test(subject) ? subject : undefined;
  } catch {
    return undefined;
  }
}

const asymmetricAlgorithms = ['RS256', 'ES256'];

function toAuthenticated(row: ClientRow): AuthenticatedClient {
  return { clientId: row.clientId, name: row.name, scopes: row.scopes as Scope[] };
}

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { client: AuthenticatedClient; until: number }>();
  const jwks: JWTVerifyGetKey | undefined = options.jwks ? createRemoteJWKSet(new URL(options.jwks.url)) : undefined;
  // A JWT secret opens with the deployment's keyring; the client-secret hashes stay keyed by QUARRY_SECRET_KEY.
  const sealer = createSealer(options.secretKey, options.keyring);

  const fromBasic = async (encoded: string): Promise<{ client: AuthenticatedClient; until: number } | null> => {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const separator = decoded.indexOf(':');
    const secret = separator === -1 ? decoded : decoded.slice(0, separator);
    if (!secret) return null;
    const row = await findActiveClientBySecretHash(options.db, hashSecret(options.secretKey, secret));
    return row ? { client: toAuthenticated(row), until: now() + options.cacheMs } : null;
  };

  const fromBearer = async (token: string): Promise<{ client: AuthenticatedClient; until: number } | null> => {
    let algorithm: string | undefined;
    let subject: string | undefined;
    try {
      algorithm = decodeProtectedHeader(token).alg;
      subject = decodeJwt(token).sub;
    } catch {
      return null;
    }
    if (!subject) return null;
    const row = await findActiveClientById(options.db, subject);
    if (!row) return null;
    try {
      const verified =
        algorithm === 'HS256'
          ? await jwtVerify(
              token,
              new TextEncoder().encode(sealer.open(sealedColumns.clientJwtSecret, row.clientId, row.jwtSecretCiphertext)),
              {
                algorithms: ['HS256'],
                requiredClaims: ['exp', 'sub'],
              },
            )
          : algorithm && asymmetricAlgorithms.includes(algorithm) && jwks
            ? await jwtVerify(token, jwks, {
                algorithms: asymmetricAlgorithms,
                requiredClaims: ['exp', 'sub'],
                ...(options.jwks?.issuer ? { issuer: options.jwks.issuer } : {}),
                ...(options.jwks?.audience ? { audience: options.jwks.audience } : {}),
              })
            : null;
      if (!verified?.payload.exp) return null;
      // Never trust a cached token past its own expiry.
      return { client: toAuthenticated(row), until: Math.min(now() + options.cacheMs, verified.payload.exp * 1000) };
    } catch {
      return null;
    }
  };

  return {
    sessions: options.sessions,
    async clientById(clientId) {
      const cacheKey = `id:${clientId}`;
      const cached = cache.get(cacheKey);
      if (cached && cached.until > now()) return cached.client;
      const row = await findActiveClientById(options.db, clientId);
      if (!row) return null;
      const client = toAuthenticated(row);
      if (options.cacheMs > 0) cache.set(cacheKey, { client, until: now() + options.cacheMs });
      return client;
    },
    async authenticate(authorization, context = {}) {
      if (!authorization) return null;
      const cacheKey = createHash('sha256').update(authorization).digest('base64');
      const cached = cache.get(cacheKey);
      if (cached && cached.until > now()) return cached.client;
      cache.delete(cacheKey);
      const [scheme = '', credential = ''] = authorization.trim().split(/\s+/, 2);
      const verified = !credential
        ? null
        : scheme.toLowerCase() === 'basic'
          ? await fromBasic(credential)
          : scheme.toLowerCase() === 'bearer'
            ? await fromBearer(credential)
            : null;
      if (!verified) {
        // Only failures are counted, after the credential was checked: a valid credential is
        // answered whatever its address did (secrets are 256-bit random, so the limit is about
        // load and probing, not guessing; ADR 0030).
        const retryAfterSeconds = await options.failedAttempts?.record({
          address: context.address,
          clientId: claimedClientId(scheme, credential),
        });
        if (retryAfterSeconds) {
          throw new AppError(
            'TooManyRequests',
            'Too many failed authentication attempts; retry later',
            { retryAfterSeconds },
            { retryAfterSeconds },
          );
        }
        return null;
      }
      if (options.cacheMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(cacheKey, verified);
      }
      return verified.client;
    },
  };
}
