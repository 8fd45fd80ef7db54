import { errors, type Page } from 'playwright-core';
import type { FieldRecipe } from './booking-engine-recipes.ts';

// The slice of the DOM these reads touch (the workspace compiles without the DOM library).
type PageElement = { getAttribute(name: string): string | null; textContent: string | null };
type PageDocument = { querySelector(selector: string): PageElement | null };
type PageGlobals = {
  document: PageDocument;
  MutationObserver: new (callback: () => void) => { observe(target: PageDocument, options: Record<string, boolean>): void; disconnect(): void };
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(timer: number): void;
};

/** How long one wait in the page lasts before it is asked again: a page that navigated is asked on its new document. */
const waitSliceMs = 5_000;

const navigatedAway = (error: unknown) => /Execution context was destroyed|because of a navigation/.test((error as Error).message);

/** Runs in the page: the index of the first of `selectors` that matches, once one does, or -1 after `ms` (no polling: the DOM's changes wake it). */
function firstMatchWithin([selectors, ms]: readonly [string[], number]): Promise<number> {
  const page = globalThis as unknown as PageGlobals;
  const firstMatch = () => selectors.findIndex((selector) => page.document.querySelector(selector) !== null);
  return new Promise((resolve) => {
    const now = firstMatch();
    if (now >= 0) return resolve(now);
    const observer = new page.MutationObserver(() => {
      const found = firstMatch();
      if (found < 0) return;
      observer.disconnect();
      page.clearTimeout(timer);
      resolve(found);
    });
    observer.observe(page.document, { childList: true, subtree: true, attributes: true });
    const timer = page.setTimeout(() => {
      observer.disconnect();
      resolve(-1);
    }, ms);
  });
}

/**
 * Waits until the page's current document has an element matching one of `selectors` (CSS),
 * following the page across navigations, and says which: the index of the first in `selectors`
 * that matches then. A TimeoutError after `timeoutMs`.
 *
 * Playwright's locators install their selector engine (a script of some 340 kB, compiled in the
 * renderer) in every document they touch, and poll while they wait. A checkout only reads some
 * pages (the results, the outcome) and types into none of them: waiting and reading there with a
 * plain `evaluate` costs the browser a fraction of that. Pages that are typed into keep
 * Playwright's locators, and their actionability checks, for typing and clicking.
 */
export async function waitForAnyOnPage(page: Page, selectors: string[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (let left = timeoutMs; left > 0; left = deadline - Date.now()) {
    const asked = page.evaluate(firstMatchWithin, [selectors, Math.min(left, waitSliceMs)] as const).catch((error: unknown) => {
      if (navigatedAway(error)) return -1;
      throw error;
    });
    // The deadline is kept here, not by the page's timer: a page busy in a script answers nothing.
    asked.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-1), left)));
    const found = await Promise.race([asked, late]).finally(() => clearTimeout(timer));
    if (found >= 0) return found;
  }
  throw new errors.TimeoutError(`Timeout ${timeoutMs}ms exceeded waiting for ${selectors.join(' or ')}`);
}

/** `waitForAnyOnPage` with one selector. */
export async function waitForSelectorOnPage(page: Page, selector: string, timeoutMs: number): Promise<void> {
  await waitForAnyOnPage(page, [selector], timeoutMs);
}

/** Runs in the page: the first match of each selector, as the text or attribute a field names; null for no match. */
function readFields(fields: FieldRecipe[]): (string | null)[] {
  const { document } = globalThis as unknown as PageGlobals;
  return fields.map((field) => {
    const element = document.querySelector(field.selector);
    if (!element) return null;
    const value = field.attribute ? element.getAttribute(field.attribute) : element.textContent;
    return value === null ? null : value.replace(/\s+/g, ' ').trim();
  });
}

/** Several fields of the page's current document in one read, whitespace collapsed; null where nothing matches. */
export function readFieldsOnPage(page: Page, fields: FieldRecipe[]): Promise<(string | null)[]> {
  return page.evaluate(readFields, fields);
}
