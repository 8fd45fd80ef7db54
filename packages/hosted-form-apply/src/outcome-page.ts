import type { ApplicationErrorCode } from '@quarry/contracts';
import type { Page } from 'playwright-core';
import type { Confirmation } from './applier-port.ts';
import { vendorTextOf, type AtsRecipe } from './ats-recipes.ts';
import { callApplier } from './applier-page.ts';
import {
  botChecks,
  botWallText,
  challengeSelector,
  closedText,
  duplicateText,
  fieldErrorCodes,
  fieldErrorSelector,
  referenceNumber,
  successText,
  successUrl,
} from './application-page-rules.ts';

/** What the page shows a person, read in one round trip per frame. */
export type PageReading = {
  url: string;
  /** The visible text of every frame, whitespace collapsed. */
  text: string;
  /** Visible error messages (alerts, field errors) and the browser's own validation messages of invalid controls. */
  errors: string[];
  /** A challenge a person must solve is laid out (application-page-rules.ts `challengeSelector`). */
  challenge: boolean;
  /** The vendor of the bot check the page lays out or describes (application-page-rules.ts `botChecks`), or null. */
  botCheck: string | null;
};

type FrameReading = Omit<PageReading, 'url'>;

const frameReadMs = 3_000;

/** Reads every frame; a frame that navigates or goes away mid-read, or does not answer, counts as empty. */
export async function readPage(page: Page): Promise<PageReading> {
  const reading: PageReading = { url: page.url(), text: '', errors: [], challenge: false, botCheck: null };
  const checks = botChecks.filter((check) => check.selector).map((check) => ({ vendor: check.vendor, selector: check.selector }));
  for (const frame of page.frames()) {
    // A frame without a live document (a challenge frame a script points at about:blank) may never
    // answer an evaluation: it counts as empty after a while, so the read always ends.
    const frameReading = await Promise.race([
      callApplier<FrameReading>(frame, 'read', { errorSelector: fieldErrorSelector, challengeSelector, botChecks: checks }).catch(
        () => null,
      ),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), frameReadMs).unref()),
    ]);
    if (!frameReading) continue;
    reading.text = `${reading.text} ${frameReading.text}`.trim();
    reading.errors.push(...frameReading.errors);
    reading.challenge ||= frameReading.challenge;
    reading.botCheck ??= frameReading.botCheck;
  }
  reading.botCheck ??= botChecks.find((check) => check.text?.test(reading.text))?.vendor ?? null;
  return reading;
}

/** A field error's own message, sorted into a code (application-page-rules.ts `fieldErrorCodes`). */
export function codeOfFieldError(message: string): ApplicationErrorCode {
  return fieldErrorCodes.find(({ pattern }) => pattern.test(message))?.code ?? 'ApplicationFailed';
}

/** The most telling of several field errors: a file refusal beats bad details beats a missing answer. */
export function worstFieldError(errors: string[]): { code: ApplicationErrorCode; message: string } {
  for (const { code } of fieldErrorCodes) {
    const message = errors.find((error) => codeOfFieldError(error) === code);
    if (message)
      return {
        code,
        message:
          errors.length > 1
            ? `${message} (and ${errors.length - 1} more: ${errors
                .filter((error) => error !== message)
                .join('; ')
                .slice(0, 300)})`
            : message,
      };
  }
  return { code: 'ApplicationFailed', message: errors.join('; ').slice(0, 500) };
}

/** Why a page refuses before anything is filled (a closed posting, a duplicate, a bot wall), or null. */
export function refusalOf(reading: PageReading, recipe: AtsRecipe | null = null): { code: ApplicationErrorCode; message: string } | null {
  if (reading.botCheck || reading.challenge || botWallText.test(reading.text))
    return { code: 'BotDetection', message: botCheckMessage(reading, recipe) };
  const vendor = vendorTextOf(recipe, [reading.text]);
  if (vendor && (vendor.code === 'JobExpired' || vendor.code === 'JobNotFound' || vendor.code === 'AlreadyApplied')) return vendor;
  if (duplicateText.test(reading.text)) return { code: 'AlreadyApplied', message: quote(reading.text, duplicateText) ?? 'already applied' };
  if (closedText.test(reading.text)) return { code: 'JobExpired', message: quote(reading.text, closedText) ?? 'the posting is closed' };
  return null;
}

export type AfterClick =
  | { status: 'success'; confirmation: Confirmation }
  | { status: 'failed'; code: ApplicationErrorCode; message: string }
  /** Nothing conclusive yet: the page may still be working; the caller reads again until its deadline. */
  | { status: 'pending'; message: string };

/**
 * What the page says after the final click. Wording counts only when it is new since the click
 * (a form page that already said "thank you for applying" in its intro proves nothing); a
 * confirmation address counts when the page moved there.
 */
export function classifyAfterClick(
  before: PageReading,
  after: PageReading,
  navigationStatus: number | null,
  recipe: AtsRecipe | null = null,
): AfterClick {
  const appeared = (pattern: RegExp) => pattern.test(after.text) && !pattern.test(before.text);
  if (navigationStatus === 404 || navigationStatus === 410)
    return { status: 'failed', code: 'JobNotFound', message: `HTTP ${navigationStatus} after the submission` };
  if ((after.botCheck && after.botCheck !== before.botCheck) || (after.challenge && !before.challenge) || appeared(botWallText))
    return { status: 'failed', code: 'BotDetection', message: botCheckMessage(after, recipe) };
  // The vendor's own wording first: it names what the generic patterns can only guess.
  const vendorRule = recipe?.texts.find((rule) => after.errors.some((error) => rule.pattern.test(error)) || appeared(rule.pattern));
  const vendorText = vendorRule ? vendorTextOf({ ...(recipe as AtsRecipe), texts: [vendorRule] }, [...after.errors, after.text]) : null;
  if (vendorText) return { status: 'failed', ...vendorText };
  if (appeared(duplicateText))
    return { status: 'failed', code: 'AlreadyApplied', message: quote(after.text, duplicateText) ?? 'already applied' };
  if (appeared(closedText))
    return { status: 'failed', code: 'JobExpired', message: quote(after.text, closedText) ?? 'the posting is closed' };
  if (after.errors.length > 0) {
    const worst = worstFieldError(after.errors);
    return { status: 'failed', code: worst.code, message: worst.message };
  }
  const address = new URL(after.url).pathname + new URL(after.url).search;
  const movedToConfirmation = after.url !== before.url && (successUrl.test(address) || (recipe?.successUrl?.test(address) ?? false));
  if (appeared(successText) || (recipe?.successText ? appeared(recipe.successText) : false) || movedToConfirmation) {
    const reference = referenceNumber.exec(after.text)?.[1];
    // A confirmation page is short: all of it; a long page, the sentence that confirms.
    const text = after.text.length <= 1_000 ? after.text : (quote(after.text, successText) ?? after.text.slice(0, 1_000));
    return { status: 'success', confirmation: { text, ...(reference ? { reference } : {}) } };
  }
  if (navigationStatus === 403 || navigationStatus === 429)
    return { status: 'failed', code: 'BotDetection', message: `HTTP ${navigationStatus} after the submission` };
  return {
    status: 'pending',
    message:
      navigationStatus && navigationStatus >= 400
        ? `HTTP ${navigationStatus} after the submission, and no message the engine recognises`
        : 'the page showed no confirmation and no error after the submission',
  };
}

/** A bot check named by the vendor that runs it, on the form of the ATS that shows it. */
export function botCheckMessage(reading: PageReading, recipe: AtsRecipe | null): string {
  const where = recipe ? ` on the ${recipe.vendor} form` : '';
  if (reading.botCheck) return `${reading.botCheck}${where}: a person would have to pass it; bot checks are reported, not solved`;
  const said = quote(reading.text, botWallText);
  return said ? `a bot check${where}: ${said}` : `a captcha or challenge${where}`;
}

/** The sentence of `text` that matched `pattern`, as the page put it. */
function quote(text: string, pattern: RegExp): string | null {
  const match = pattern.exec(text);
  if (!match) return null;
  const stop = text.lastIndexOf('. ', match.index);
  const start = Math.max(stop === -1 ? 0 : stop + 2, match.index - 200);
  const end = text.indexOf('. ', match.index + match[0].length);
  return text.slice(start, end === -1 ? Math.min(text.length, match.index + match[0].length + 200) : end + 1).trim();
}
