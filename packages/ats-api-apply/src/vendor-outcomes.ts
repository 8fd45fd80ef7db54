import type { SubmitHooks, SubmitOutcome } from '@quarry/hosted-form-apply';
import type { ApplicationErrorCode } from '@quarry/contracts';
import { VendorUnreachable, type VendorAnswer } from './vendor-request.ts';

/**
 * The vendors' refusal texts, by what they mean (checked in this order). Their wording differs
 * between vendors and versions, so each rule is a pattern over the message the vendor returned.
 */
const refusalRules: Array<[ApplicationErrorCode, RegExp]> = [
  ['AlreadyApplied', /already (applied|submitted|exists)|duplicate|one application per/i],
  ['JobExpired', /no longer (accepting|available|open)|closed|not (live|published|open)|unpublished|archived|expired/i],
  [
    'FileTypeNotSupported',
    /(attachment|file|resume|cv|cover[ _]letter)[^.]*(type|format|extension|empty|0 bytes|> ?0 bytes|invalid|not supported|unsupported)|(invalid|unsupported)[^.]*(file|attachment|resume|cv)/i,
  ],
  ['MandatoryQuestionsNotAnswered', /required|missing|can(no|')t be blank|must be (present|answered|provided)/i],
  ['ApplicantDetailsInvalid', /(email|phone|name)[^.]*(invalid|not valid|format|url)|invalid[^.]*(email|phone|name)/i],
];

function refusalCode(message: string): ApplicationErrorCode {
  return refusalRules.find(([, pattern]) => pattern.test(message))?.[0] ?? 'ApplicationFailed';
}

/**
 * A vendor's refusal of a request (4xx): nothing was recorded. A refused key is `ApiKeyRejected`; a rate limit says
 * so in the message (the interface has no code of its own); the rest is read from the text.
 */
export function refusal(vendor: string, answer: VendorAnswer, message: string): SubmitOutcome {
  const said = message.trim() || `HTTP ${answer.status}`;
  if (answer.status === 401 || answer.status === 403) {
    return {
      status: 'failed',
      errorCode: 'ApiKeyRejected',
      message: `${vendor} refused the registered API key (HTTP ${answer.status}: ${said}); nothing was submitted; register the employer's current key`,
      submitted: false,
    };
  }
  if (answer.status === 429) {
    const wait = answer.retryAfter ? ` (retry after ${answer.retryAfter} s)` : '';
    return {
      status: 'failed',
      errorCode: 'ApplicationFailed',
      message: `${vendor} rate-limited the submission${wait}: ${said}; nothing was recorded, apply again later`,
      submitted: false,
    };
  }
  const errorCode = answer.status === 404 || answer.status === 410 ? 'JobExpired' : refusalCode(said);
  return { status: 'failed', errorCode, message: `${vendor}: ${said}`, submitted: false };
}

/**
 * The irreversible request: `beforeSubmit` first (its failure stops everything), then one call.
 * What the vendor says is classified by `read`; a 5xx, a lost connection or a timeout after the
 * request left is `unknown` (it may be recorded), never retried here.
 */
export async function submitOnce(
  vendor: string,
  hooks: SubmitHooks,
  send: () => Promise<VendorAnswer>,
  read: (answer: VendorAnswer) => SubmitOutcome,
): Promise<SubmitOutcome> {
  await hooks.beforeSubmit();
  let answer: VendorAnswer;
  try {
    answer = await send();
  } catch (error) {
    if (error instanceof VendorUnreachable)
      return {
        status: 'failed',
        errorCode: 'ApplicationFailed',
        message: `${vendor}: ${error.message}; nothing was sent`,
        submitted: false,
      };
    return {
      status: 'unknown',
      message: `${vendor} did not answer the submission (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  if (answer.status >= 500) return { status: 'unknown', message: `${vendor} answered HTTP ${answer.status} to the submission` };
  return read(answer);
}

/** The first human-readable message of a vendor's error body, whatever its shape. */
export function vendorMessage(json: unknown, text: string): string {
  const seen: string[] = [];
  const walk = (value: unknown, key = '') => {
    if (seen.length >= 5) return;
    if (typeof value === 'string')
      seen.push(key && !/^\d+$/.test(key) && !['error', 'errors', 'message'].includes(key) ? `${key}: ${value}` : value);
    else if (Array.isArray(value)) value.forEach((item) => walk(item, key));
    else if (value && typeof value === 'object')
      for (const [name, item] of Object.entries(value)) if (name !== 'ok' && name !== 'success') walk(item, name);
  };
  walk(json);
  return (seen.length > 0 ? seen.join('; ') : text).slice(0, 1000);
}
