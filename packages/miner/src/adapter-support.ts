import type { MiningErrorCode, Question } from '@quarry/contracts';
import {
  FetchTimeoutError,
  ResponseTooLargeError,
  UnsafeUrlError,
  type SafeFetch,
  type SafeFetchInit,
  type SafeResponse,
} from '@quarry/safe-fetch';
import type { z } from 'zod';
import type { BoardCredential, JobPostToMine } from './miner-port.ts';
import { codeOfUnsafeUrl } from './unsafe-url-failure.ts';

/**
 * A known reason the form cannot be mined. Adapters throw it from deep inside parsing; the router
 * turns it into a typed outcome, so no website behaviour ever escapes as an exception.
 */
export class MiningFailure extends Error {
  override readonly name = 'MiningFailure';
  readonly errorCode: MiningErrorCode;

  constructor(errorCode: MiningErrorCode, detail: string) {
    super(detail);
    this.errorCode = errorCode;
  }
}

/** The page is not what the adapter expected (e.g. a `?gh_jid=` page we cannot resolve): try the generic miner. */
export class NotThisAdapter extends Error {
  override readonly name = 'NotThisAdapter';
}

export type AdapterContext = {
  fetch: SafeFetch;
  timeoutMs: number;
  signal: AbortSignal;
  jobPost: JobPostToMine;
  /** The employer's key for the posting's board, when the client registered one (never logged). */
  credential?: BoardCredential | undefined;
};

/** What an adapter returns: the questions in form order (the router validates and adds answers). */
export type AtsAdapter<Target> = (target: Target, context: AdapterContext) => Promise<Question[]>;

/** `{company}` and `{host}` in a configured base URL, filled from the posting URL. */
export function expandBase(template: string, values: { company?: string; host?: string }): string {
  return template
    .replaceAll('{company}', encodeURIComponent(values.company ?? ''))
    .replaceAll('{host}', values.host ?? '')
    .replace(/\/+$/, '');
}

function failureForStatus(status: number): MiningFailure | null {
  if (status === 404 || status === 410) return new MiningFailure('JobNotFound', `HTTP ${status}`);
  if (status === 401) return new MiningFailure('LoginRequired', 'HTTP 401');
  if (status === 403 || status === 429) return new MiningFailure('BotDetection', `HTTP ${status}`);
  if (status >= 400) return new MiningFailure('GenericWebsiteError', `HTTP ${status}`);
  return null;
}

/** Maps what the SSRF-guarded fetch throws to mining codes; anything else is a site/network fault. */
function failureForFetchError(error: unknown): MiningFailure {
  if (error instanceof MiningFailure) return error;
  if (error instanceof FetchTimeoutError) return new MiningFailure('NavigationTimeout', error.message);
  if (error instanceof UnsafeUrlError) return new MiningFailure(codeOfUnsafeUrl(error), error.message);
  if (error instanceof ResponseTooLargeError) return new MiningFailure('GenericWebsiteError', error.message);
  return new MiningFailure('GenericWebsiteError', error instanceof Error ? error.message : String(error));
}

/** A request through the injected SafeFetch; non-2xx statuses become mining failures unless allowed. */
export async function request(
  context: AdapterContext,
  url: string,
  init: SafeFetchInit & { allowStatus?: readonly number[] } = {},
): Promise<SafeResponse> {
  const { allowStatus = [], ...rest } = init;
  let response: SafeResponse;
  try {
    response = await context.fetch(url, { timeoutMs: context.timeoutMs, signal: context.signal, ...rest });
  } catch (error) {
    throw failureForFetchError(error);
  }
  if (allowStatus.includes(response.status)) return response;
  const failure = failureForStatus(response.status);
  if (failure) {
    response.body.resume();
    throw failure;
  }
  return response;
}

export async function readText(response: SafeResponse): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw failureForFetchError(error);
  }
}

export async function readJson(response: SafeResponse): Promise<unknown> {
  const text = await readText(response);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A JSON endpoint answering HTML is a block page or a moved site, not a form definition.
    if (/captcha|cf-challenge|datadome/i.test(text)) throw new MiningFailure('BotDetection', 'a bot wall instead of the form definition');
    throw new MiningFailure('GenericWebsiteError', 'the form definition is not JSON');
  }
}

/** Vendor payloads are a boundary: a shape we do not know is a typed failure, never a crash. */
export function parsePayload<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MiningFailure(
      'GenericWebsiteError',
      `unexpected ${what} payload at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? ''}`.slice(0, 500),
    );
  }
  return parsed.data;
}
