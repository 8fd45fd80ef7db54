import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type DashboardSession = { clientId: string; csrf: string; expiresAt: number };

export const dashboardSessionCookie = 'quarry_session';

/**
 * Dashboard sessions are signed cookies (HMAC under QUARRY_SECRET_KEY, its own derived key), so
 * any API process can verify them without shared session storage. Each carries a random CSRF
 * token that state-changing requests must echo in `x-csrf-token`.
 */
export function createSessionCodec(secretKey: Buffer, options: { ttlMs: number; now?: () => number }) {
  const key = createHmac('sha256', secretKey).update('quarry dashboard session v1').digest();
  const now = options.now ?? Date.now;
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    issue(clientId: string): { value: string; session: DashboardSession } {
      const session = { clientId, csrf: randomBytes(24).toString('base64url'), expiresAt: now() + options.ttlMs };
      const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
      return { value: `${payload}.${sign(payload)}`, session };
    },
    /** A short-lived signed value (single sign-on state between redirects). */
    seal(purpose: string, data: Record<string, string>, ttlMs: number): string {
      const payload = Buffer.from(JSON.stringify({ purpose, data, expiresAt: now() + ttlMs })).toString('base64url');
      return `${payload}.${sign(`${purpose}:${payload}`)}`;
    },
    open(purpose: string, value: string | undefined): Record<string, string> | null {
      const [payload, signature] = (value ?? '').split('.');
      if (!payload || !signature) return null;
      const expected = Buffer.from(sign(`${purpose}:${payload}`));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      const sealed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        purpose: string;
        data: Record<string, string>;
        expiresAt: number;
      };
      return sealed.purpose === purpose && sealed.expiresAt > now() ? sealed.data : null;
    },
    verify(value: string | undefined): DashboardSession | null {
      if (!value) return null;
      const [payload, signature] = value.split('.');
      if (!payload || !signature) return null;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      try {
        const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as DashboardSession;
        return typeof session.clientId === 'string' && typeof session.csrf === 'string' && session.expiresAt > now() ? session : null;
      } catch {
        return null;
      }
    },
  };
}

export type SessionCodec = ReturnType<typeof createSessionCodec>;

export function sameToken(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
