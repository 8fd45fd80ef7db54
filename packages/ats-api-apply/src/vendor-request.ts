import { MultipartBody } from './multipart-body.ts';

/** What a vendor answered: its status and body (JSON when it parses). */
export type VendorAnswer = { status: number; text: string; json: unknown; retryAfter: string | null };

/** The request could not reach the vendor (refused connection, DNS): provably nothing was sent. */
export class VendorUnreachable extends Error {
  override readonly name = 'VendorUnreachable';
}

const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * One request to a vendor's API: the vendor's fixed host (configured, never a client's URL), a
 * time cap and the job's abort signal. A body is multipart (byte for byte) or JSON; a vendor with
 * its own JSON media type names it in `headers`. Throws `VendorUnreachable` when no byte can have left.
 */
export async function callVendor(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: MultipartBody; json?: unknown },
  timeoutMs: number,
  signal: AbortSignal,
): Promise<VendorAnswer> {
  const encoded =
    init.body instanceof MultipartBody
      ? init.body.encode()
      : init.json !== undefined
        ? { body: Buffer.from(JSON.stringify(init.json), 'utf8'), contentType: 'application/json' }
        : null;
  const headers = { ...(encoded ? { 'content-type': encoded.contentType } : {}), ...init.headers };
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      headers,
      ...(encoded ? { body: encoded.body } : {}),
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code && unreachableCodes.has(code)) throw new VendorUnreachable(`the vendor's API could not be reached (${code})`);
    throw error;
  }
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, retryAfter: response.headers.get('retry-after') };
}

/** The template's `{host}`/`{company}` filled, without a trailing slash (as the miner's endpoints). */
export function expandEndpoint(template: string, values: { company?: string; host?: string }): string {
  return template
    .replaceAll('{company}', encodeURIComponent(values.company ?? ''))
    .replaceAll('{host}', values.host ?? '')
    .replace(/\/+$/, '');
}
