import { errors, type Frame, type Page } from 'playwright-core';
import { askPage, type PageAnswer, type PageOrFrame } from './page-reads.ts';

type Action = 'type' | 'click';
type Point = { x: number; y: number };
/** What an action found ready: a text field to type into (or one whose value was set), or the point to click. */
type Prepared = { typing: boolean } | Point;

// The slice of the DOM the page-side functions touch (the workspace compiles without the DOM library).
type Rect = { x: number; y: number; width: number; height: number; top: number; left: number; bottom: number; right: number };
type PageNode = { parentNode: PageNode | null; host?: PageNode };
type PageElement = PageNode & {
  tagName: string;
  type?: string;
  value?: string;
  checked?: boolean;
  readOnly?: boolean;
  isContentEditable: boolean;
  shadowRoot: { elementFromPoint(x: number, y: number): PageElement | null } | null;
  matches(selector: string): boolean;
  closest(selector: string): PageElement | null;
  getBoundingClientRect(): Rect;
  checkVisibility?(options: Record<string, boolean>): boolean;
  scrollIntoView(options: Record<string, string>): void;
  focus(): void;
  select?(): void;
  dispatchEvent(event: unknown): boolean;
};
type PageEvent = { isTrusted: boolean; composedPath(): PageNode[]; preventDefault(): void; stopImmediatePropagation(): void };
type Globals = Record<string, unknown> & {
  document: {
    querySelector(selector: string): PageElement | null;
    elementFromPoint(x: number, y: number): PageElement | null;
    createRange(): { selectNodeContents(node: PageElement): void };
  };
  getSelection(): { removeAllRanges(): void; addRange(range: unknown): void } | null;
  getComputedStyle(element: PageElement): { visibility: string };
  innerWidth: number;
  innerHeight: number;
  MutationObserver: new (callback: () => void) => { observe(target: unknown, options: Record<string, boolean>): void; disconnect(): void };
  Event: new (type: string, init: Record<string, boolean>) => unknown;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(timer: number): void;
  setInterval(callback: () => void, ms: number): number;
  clearInterval(timer: number): void;
  requestAnimationFrame(callback: () => void): number;
  addEventListener(type: string, listener: (event: PageEvent) => void, capture: boolean): void;
  removeEventListener(type: string, listener: (event: PageEvent) => void, capture: boolean): void;
};

/**
 * Runs in the page: waits within `ms` until `selector` can take `action`, with the checks
 * Playwright's actions make, then prepares it. A field to type into must be attached, visible,
 * enabled and editable; it is focused with its text selected (a date or similar input gets its
 * value set instead, as Playwright does). An element to click must be attached, visible and
 * enabled, is scrolled into view, must keep its place for a frame and be the element on top at its
 * centre; a guard then refuses the click's events to any other element (a banner that slid in),
 * and `guard` names it for `clickResult`.
 */
function prepare([[selector, action, value, guard], ms]: readonly [readonly [string, Action, string, string], number]): Promise<
  PageAnswer<Prepared>
> {
  const page = globalThis as unknown as Globals;
  const typed = new Set(['', 'text', 'email', 'tel', 'url', 'search', 'password', 'number']);
  const setDirectly = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
  const nextFrame = () => new Promise<void>((resolve) => page.requestAnimationFrame(() => resolve()));
  const within = (element: PageElement, node: PageNode | null) => {
    for (let at = node; at; at = at.parentNode ?? at.host ?? null) if (at === element) return true;
    return false;
  };
  const check = async (): Promise<PageAnswer<Prepared>> => {
    const element = page.document.querySelector(selector);
    if (!element) return { done: false, why: 'not in the page' };
    const box = element.getBoundingClientRect();
    const shown = element.checkVisibility?.({ visibilityProperty: true }) ?? page.getComputedStyle(element).visibility === 'visible';
    if (!shown || box.width === 0 || box.height === 0) return { done: false, why: 'not visible' };
    if (element.matches(':disabled') || element.closest('[aria-disabled="true"]')) return { done: false, why: 'disabled' };
    if (action === 'type') {
      const tag = element.tagName.toLowerCase();
      const kind = (element.type ?? '').toLowerCase();
      if (tag === 'input' && setDirectly.has(kind)) {
        element.focus();
        element.value = value;
        if (element.value !== value) return { done: false, why: `refuses the value "${value}"` };
        element.dispatchEvent(new page.Event('input', { bubbles: true, composed: true }));
        element.dispatchEvent(new page.Event('change', { bubbles: true }));
        return { done: true, value: { typing: false } };
      }
      if (!((tag === 'input' && typed.has(kind)) || tag === 'textarea' || element.isContentEditable))
        return { done: false, why: 'not a text field' };
      if (element.readOnly || element.closest('[aria-readonly="true"]')) return { done: false, why: 'read-only' };
      element.focus();
      if (element.select) element.select();
      else {
        const range = page.document.createRange();
        range.selectNodeContents(element);
        page.getSelection()?.removeAllRanges();
        page.getSelection()?.addRange(range);
      }
      return { done: true, value: { typing: true } };
    }
    if (box.top < 0 || box.left < 0 || box.bottom > page.innerHeight || box.right > page.innerWidth)
      element.scrollIntoView({ block: 'center', inline: 'center' });
    const before = element.getBoundingClientRect();
    await nextFrame();
    const after = element.getBoundingClientRect();
    if (before.x !== after.x || before.y !== after.y || before.width !== after.width || before.height !== after.height)
      return { done: false, why: 'still moving' };
    const x = after.x + after.width / 2;
    const y = after.y + after.height / 2;
    let hit = page.document.elementFromPoint(x, y);
    while (hit?.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    if (!within(element, hit)) return { done: false, why: 'covered by another element' };
    const state = { misdirected: false, remove: () => {} };
    const events = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];
    const refuse = (event: PageEvent) => {
      if (!event.isTrusted || within(element, event.composedPath()[0] ?? null)) return;
      state.misdirected = true;
      event.preventDefault();
      event.stopImmediatePropagation();
    };
    for (const type of events) page.addEventListener(type, refuse, true);
    state.remove = () => {
      for (const type of events) page.removeEventListener(type, refuse, true);
    };
    page[guard] = state;
    return { done: true, value: { x, y } };
  };
  return new Promise((resolve) => {
    let settled = false;
    let last: PageAnswer<Prepared> = { done: false, why: 'not in the page' };
    const finish = (answer: PageAnswer<Prepared>) => {
      if (settled) return;
      settled = true;
      observer.disconnect();
      page.clearInterval(poll);
      page.clearTimeout(timer);
      resolve(answer);
    };
    let checking = false;
    const attempt = () => {
      if (checking || settled) return;
      checking = true;
      void check().then((answer) => {
        checking = false;
        last = answer;
        if (answer.done) finish(answer);
      });
    };
    // The DOM's changes wake it; the interval catches what only styles and layout change.
    const observer = new page.MutationObserver(attempt);
    observer.observe(page.document, { childList: true, subtree: true, attributes: true, characterData: true });
    const poll = page.setInterval(attempt, 100);
    const timer = page.setTimeout(() => finish(last), ms);
    attempt();
  });
}

/** Runs in the page: removes the click's guard; whether it refused an event (the click reached another element), and the element's checked state. */
function clickResult([selector, guard]: readonly [string, string]): { misdirected: boolean; checked: boolean | null } {
  const page = globalThis as unknown as Globals;
  const state = page[guard] as { misdirected: boolean; remove(): void } | undefined;
  state?.remove();
  Reflect.deleteProperty(page, guard);
  const checked = page.document.querySelector(selector)?.checked;
  return { misdirected: state?.misdirected ?? false, checked: checked ?? null };
}

const keyboardOf = (target: PageOrFrame) => ('keyboard' in target ? target : target.page()).keyboard;

/**
 * Types `value` into the first match of `selector` (CSS) once it is a visible, enabled, editable
 * field: focused, its text selected, then Chromium's own text input (trusted input events, as a
 * person's typing, and as Playwright's `fill`). A TimeoutError after `timeoutMs`.
 */
export async function fillOnPage(target: PageOrFrame, selector: string, value: string, timeoutMs: number): Promise<void> {
  const prepared = await askPage(target, prepare, [selector, 'type', value, ''] as const, timeoutMs, `${selector} to type into`);
  if (!('typing' in prepared) || !prepared.typing) return;
  if (value) await keyboardOf(target).insertText(value);
  else await keyboardOf(target).press('Delete');
}

const guardName = () => `__quarryClickGuard${Math.random().toString(36).slice(2)}`;

/**
 * Clicks the first match of `selector` (CSS, in the page's main frame) with Chromium's own mouse
 * events, once it is visible, enabled, steady and on top; a click an overlay took instead is
 * refused and tried again. Returns the element's checked state after the click (null if it has none
 * or the page navigated). A TimeoutError after `timeoutMs`.
 */
export async function clickOnPage(page: Page, selector: string, timeoutMs: number): Promise<boolean | null> {
  const deadline = Date.now() + timeoutMs;
  for (let left = timeoutMs; ; left = deadline - Date.now()) {
    if (left <= 0) throw new errors.TimeoutError(`Timeout ${timeoutMs}ms exceeded clicking ${selector}: another element took the click`);
    const guard = guardName();
    const prepared = await askPage(page, prepare, [selector, 'click', '', guard] as const, left, `${selector} to click`);
    if (!('x' in prepared)) return null;
    await page.mouse.click(prepared.x, prepared.y);
    const result = await page.evaluate(clickResult, [selector, guard] as const).catch((error: unknown) => {
      // The click took the page elsewhere: it reached its element (a refused click navigates nowhere).
      if (/Execution context was destroyed|because of a navigation/.test((error as Error).message))
        return { misdirected: false, checked: null };
      throw error;
    });
    if (!result.misdirected) return result.checked;
  }
}

/** Checks the checkbox `selector` by clicking it unless it is checked already; an error if the click left it unchecked. */
export async function checkOnPage(page: Page, selector: string, timeoutMs: number): Promise<void> {
  const checked = await page.evaluate((css) => (globalThis as unknown as Globals).document.querySelector(css)?.checked ?? null, selector);
  if (checked === true) return;
  if ((await clickOnPage(page, selector, timeoutMs)) !== true) throw new Error(`clicking ${selector} did not check it`);
}

/** Runs in the page: the name and address of the iframe `selector`, once it is there, within `ms`. */
function frameOwner([selector, ms]: readonly [string, number]): Promise<PageAnswer<{ name: string; src: string }>> {
  const page = globalThis as unknown as Globals;
  const read = (): PageAnswer<{ name: string; src: string }> => {
    const element = page.document.querySelector(selector) as (PageElement & { name?: string; src?: string }) | null;
    return element ? { done: true, value: { name: element.name ?? '', src: element.src ?? '' } } : { done: false, why: 'not in the page' };
  };
  return new Promise((resolve) => {
    const now = read();
    if (now.done) return resolve(now);
    const observer = new page.MutationObserver(() => {
      const found = read();
      if (!found.done) return;
      observer.disconnect();
      page.clearTimeout(timer);
      resolve(found);
    });
    observer.observe(page.document, { childList: true, subtree: true, attributes: true });
    const timer = page.setTimeout(() => {
      observer.disconnect();
      resolve(read());
    }, ms);
  });
}

/**
 * The frame shown by the iframe `selector` (CSS) of the page's main frame, once it is there: where
 * a payment provider's card fields are. Told apart from the page's other frames by its name, else
 * its address; only when neither tells, by asking Playwright for each frame's element (which
 * installs its selector engine in the page). A TimeoutError after `timeoutMs`.
 */
export async function frameOnPage(page: Page, selector: string, timeoutMs: number): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (let left = timeoutMs; left > 0; left = deadline - Date.now()) {
    const owner = await askPage(page, frameOwner, selector, left, `the frame ${selector}`);
    const children = page.mainFrame().childFrames();
    const named = owner.name ? children.filter((frame) => frame.name() === owner.name) : [];
    const shown = named.length > 0 ? named : children.filter((frame) => frame.url() === owner.src);
    if (shown.length === 1 && shown[0]) return shown[0];
    for (const frame of children) {
      const element = await frame.frameElement().catch(() => null);
      const matches = await element?.evaluate((found, css) => (found as unknown as PageElement).matches(css), selector).catch(() => false);
      await element?.dispose();
      if (matches) return frame;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new errors.TimeoutError(`Timeout ${timeoutMs}ms exceeded waiting for the frame of ${selector}`);
}
