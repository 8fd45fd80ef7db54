import type { Applier, ApplicationToSubmit, FileToUpload, SubmitHooks } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { createMiner, type MinerEndpoints, type MiningAccess } from '@quarry/miner';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createFakeApplier, type FakeApplier } from '../hosted-form-apply/fake-applier.ts';
import { createAtsApplier, type AtsApiEndpoints } from '@quarry/ats-api-apply';
import { expect } from 'vitest';
import type { ReceivedPart, ReceivedRequest, VendorApiDouble } from '../index.ts';

/** A PDF-looking file whose every byte must arrive unchanged (a NUL, high bytes, a CRLF in the middle). */
export const cvFile = (): FileToUpload => ({
  type: 'File',
  filename: 'Ada Lovelace CV.pdf',
  contentType: 'application/pdf',
  bytes: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 255, 254, 13, 10, 45, 45]), Buffer.from('\n%%EOF\n')]),
});

export const candidate = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0000' };

export const apply = (applier: Applier, application: ApplicationToSubmit, hooks: SubmitHooks) =>
  applier(application, hooks, new AbortController().signal);

/** Every value a submission carries under a name, in order. */
export const partsNamed = (parts: Array<[string, ReceivedPart]>, name: string): ReceivedPart[] =>
  parts.filter(([key]) => key === name).map(([, value]) => value);

/** Mines a posting with the real miner, its endpoints pointed at one vendor's double (as MINING_ATS_ENDPOINTS would). */
export async function mineWith(endpoints: Partial<MinerEndpoints>, url: string, access?: MiningAccess): Promise<Question[]> {
  const miner = createMiner({ fetch: createSafeFetch({ allowPrivate: ['127.0.0.1'] }), timeoutMs: 5_000, endpoints });
  const mined = await miner({ url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' }, new AbortController().signal, access);
  if (!mined.ok) throw new Error(`the double's form did not mine: ${mined.errorCode} ${mined.detail}`);
  return mined.form.questions;
}

/** The router as the worker builds it, pointed at one vendor's double; the hosted form a fake engine (our own port) that records what reaches it. */
export function routerWith(endpoints: Partial<AtsApiEndpoints>, limited: string[] = []): { applier: Applier; hostedForm: FakeApplier } {
  const hostedForm = createFakeApplier();
  const applier = createAtsApplier({
    hostedForm,
    endpoints,
    timeoutMs: 5_000,
    rateLimit: async (key, work) => {
      limited.push(key);
      return work();
    },
  });
  return { applier, hostedForm };
}

/** The hook as the run calls it, recording how many submissions the double had seen when it ran. */
export function hooksOn(double: VendorApiDouble): SubmitHooks & { calls: number; submissionsBefore: number[] } {
  const hooks = {
    calls: 0,
    submissionsBefore: [] as number[],
    beforeSubmit: async () => {
      hooks.calls += 1;
      hooks.submissionsBefore.push(double.submissions().length);
    },
  };
  return hooks;
}

/** A JSON submission's value at a dotted path (`candidate.answers`). */
export const jsonAt = (request: ReceivedRequest | undefined, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined),
      request?.json,
    );

/** A refusal as the double answers it: HTTP status, body, the code it maps to, and the vendor's words the message keeps. */
type RefusalCase = [status: number, body: unknown, errorCode: string, message: RegExp];

/**
 * Each refusal the double answers maps to its code with the vendor's words, nothing marked
 * submitted; an application with a key the vendor refuses says so (`revokedKey`); a server error
 * (`serverError`) leaves the outcome unknown.
 */
export async function expectRefusals(
  double: VendorApiDouble,
  applier: Applier,
  check: {
    cases: RefusalCase[];
    application: () => ApplicationToSubmit;
    revokedKey?: { application: ApplicationToSubmit; message: RegExp };
    serverError?: { status: number; body: unknown };
  },
): Promise<void> {
  for (const [status, body, errorCode, message] of check.cases) {
    double.replyNext({ status, body });
    const outcome = await apply(applier, check.application(), hooksOn(double));
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'failed', errorCode, submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(message);
  }
  if (check.revokedKey) {
    const refused = await apply(applier, check.revokedKey.application, hooksOn(double));
    expect(refused).toMatchObject({ status: 'failed', errorCode: 'ApiKeyRejected', submitted: false });
    expect(refused.status === 'failed' && refused.message).toMatch(check.revokedKey.message);
  }
  if (check.serverError) {
    double.replyNext(check.serverError);
    expect(await apply(applier, check.application(), hooksOn(double))).toMatchObject({ status: 'unknown' });
  }
}
