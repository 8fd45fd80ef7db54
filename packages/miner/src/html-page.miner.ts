import { MinedForm } from '@quarry/contracts';
import { FetchTimeoutError, UnsafeUrlError, type SafeFetch } from '@quarry/safe-fetch';
import { extractHtmlForm } from './html-form.extractor.ts';
import type { Miner, MineOutcome } from './miner-port.ts';
import { syntheticAnswers } from './synthetic-answers.ts';
import { codeOfUnsafeUrl } from './unsafe-url-failure.ts';

const adapter = 'html-form';

function failed(errorCode: Extract<MineOutcome, { ok: false }>['errorCode'], detail: string): MineOutcome {
  return { ok: false, errorCode, adapter, detail };
}

/** First miner: fetch the page (SSRF-guarded) and read its server-rendered form(s). */
export function createHtmlPageMiner(options: { fetch: SafeFetch; timeoutMs: number }): Miner {
  return async (jobPost, signal) => {
    let response;
    try {
      response = await options.fetch(jobPost.url, {
        timeoutMs: options.timeoutMs,
        signal,
        headers: { accept: 'text/html,application/xhtml+xml', 'accept-language': `en-${jobPost.country.toUpperCase()},en;q=0.8` },
      });
    } catch (error) {
      if (error instanceof FetchTimeoutError) return failed('NavigationTimeout', error.message);
      if (error instanceof UnsafeUrlError) return failed(codeOfUnsafeUrl(error), error.message);
      return failed('GenericWebsiteError', (error as Error).message);
    }
    if (response.status === 404 || response.status === 410) return failed('JobNotFound', `HTTP ${response.status}`);
    if (response.status === 401) return failed('LoginRequired', 'HTTP 401');
    if (response.status === 403 || response.status === 429) return failed('BotDetection', `HTTP ${response.status}`);
    if (response.status >= 400) return failed('GenericWebsiteError', `HTTP ${response.status}`);
    const contentType = response.headers.get('content-type') ?? '';
    if (!/html|xml/i.test(contentType)) return failed('UnsupportedWebsite', `not an HTML page (${contentType || 'no content type'})`);
    let html: string;
    try {
      html = await response.text();
    } catch (error) {
      return error instanceof FetchTimeoutError
        ? failed('NavigationTimeout', error.message)
        : failed('GenericWebsiteError', (error as Error).message);
    }
    const extracted = extractHtmlForm(html, { defaultLabel: jobPost.jobTitle });
    if (!extracted.ok) return failed(extracted.errorCode, extracted.detail);
    // A scraped page is a boundary: what we store must match the interface's question model.
    const form = MinedForm.safeParse({ questions: extracted.questions, answers: syntheticAnswers(extracted.questions) });
    if (!form.success) return failed('GenericWebsiteError', `extracted form failed validation: ${form.error.message.slice(0, 500)}`);
    return { ok: true, form: form.data, adapter };
  };
}
