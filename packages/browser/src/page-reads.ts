import { errors, type Frame, type Page } from 'playwright-core';

/** A value on a page: an element by plain CSS (the page's own `querySelector`), read from its text, or from `attribute` when given. */
export type FieldRecipe = { selector: string; attribute?: string };

// The slice of the DOM these reads touch (the workspace compiles without the DOM library).
type PageElement = { getAttribute(name: string): string | null; textContent: string | null };
type PageDocument = { querySelector(selector: string): PageElement | null };
type PageGlobals = {
  document: PageDocument;
  MutationObserver: new (callback: () => void) => {
    observe(target: PageDocument, options: Record<string, boolean>): void;
    disconnect(): void;
  };
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(timer: number): void;
};

/** A document to ask: a page's main frame, or a frame of it. */
export type PageOrFrame = Page | Frame;

/** What a question asked in the page answers: done with a value, or not yet, and why (for the timeout's message). */
export type PageAnswer<T> = { done: true; value: T } | { done: false; why: string };

/** How long one question waits in the page before it is asked again: a page that navigated is asked on its new document. */
const askSliceMs = 5_000;
/** How long past a question's own wait its answer may take to arrive (a busy machine) before the page counts as not answering. */
const answerGraceMs = 500;

const navigatedAway = (error: unknown) => /Execution context was destroyed|because of a navigation/.test((error as Error).message);

/**
 * Asks `question` (a function run in the page's current document, free of closures) until it
 * answers done: each ask may wait in the page up to its `ms` argument, a navigation in between
 * asks the next document, and a TimeoutError ends it after `timeoutMs`, saying why the last answer
 * was not done. The deadline is kept here too, not only by the page's timers: a page busy in a
 * script answers nothing.
 *
 * Booking pages are driven with such questions rather than Playwright's locators (ADR 0040): a
 * locator installs Playwright's selector engine (a script of some 340 kB, compiled in the renderer)
 * in every document it touches, and waits by polling over the DevTools protocol, each action a
 * dozen round trips; a question waits on the page's own DOM events, one round trip.
 */
export async function askPage<A, T>(
  target: PageOrFrame,
  question: (args: readonly [A, number]) => Promise<PageAnswer<T>>,
  args: A,
  timeoutMs: number,
  what: string,
): Promise<T> {
  // Playwright types evaluate's argument through its handle-unboxing types, which a generic argument cannot satisfy.
  const evaluate = target.evaluate.bind(target) as unknown as (run: typeof question, arg: readonly [A, number]) => Promise<PageAnswer<T>>;
  const deadline = Date.now() + timeoutMs;
  let why = 'no answer';
  for (let left = timeoutMs; left > 0; left = deadline - Date.now()) {
    const asked = evaluate(question, [args, Math.min(left, askSliceMs)]).catch((error: unknown): PageAnswer<T> => {
      if (navigatedAway(error)) return { done: false, why: 'the page navigated' };
      throw error;
    });
    asked.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<PageAnswer<T>>(
      (resolve) => (timer = setTimeout(() => resolve({ done: false, why: 'the page did not answer' }), left + answerGraceMs)),
    );
    const answer = await Promise.race([asked, late]).finally(() => clearTimeout(timer));
    if (answer.done) return answer.value;
    why = answer.why;
  }
  throw new errors.TimeoutError(`Timeout ${timeoutMs}ms exceeded waiting for ${what}: ${why}`);
}

/** Runs in the page: the index of the first of `selectors` that matches, once one does (the DOM's changes wake it), within `ms`. */
function firstMatchWithin([selectors, ms]: readonly [string[], number]): Promise<PageAnswer<number>> {
  const page = globalThis as unknown as PageGlobals;
  const firstMatch = () => selectors.findIndex((selector) => page.document.querySelector(selector) !== null);
  return new Promise((resolve) => {
    const now = firstMatch();
    if (now >= 0) return resolve({ done: true, value: now });
    const observer = new page.MutationObserver(() => {
      const found = firstMatch();
      if (found < 0) return;
      observer.disconnect();
      page.clearTimeout(timer);
      resolve({ done: true, value: found });
    });
    observer.observe(page.document, { childList: true, subtree: true, attributes: true });
    const timer = page.setTimeout(() => {
      observer.disconnect();
      resolve({ done: false, why: 'nothing matches' });
    }, ms);
  });
}

/**
 * Waits until the page's current document has an element matching one of `selectors` (CSS),
 * following the page across navigations, and says which: the index of the first in `selectors`
 * that matches then. A TimeoutError after `timeoutMs`.
 */
export function waitForAnyOnPage(target: PageOrFrame, selectors: string[], timeoutMs: number): Promise<number> {
  return askPage(target, firstMatchWithin, selectors, timeoutMs, selectors.join(' or '));
}

/** `waitForAnyOnPage` with one selector. */
export async function waitForSelectorOnPage(target: PageOrFrame, selector: string, timeoutMs: number): Promise<void> {
  await waitForAnyOnPage(target, [selector], timeoutMs);
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
export function readFieldsOnPage(target: PageOrFrame, fields: FieldRecipe[]): Promise<(string | null)[]> {
  return target.evaluate(readFields, fields);
}
