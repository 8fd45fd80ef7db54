import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import type { FormSnapshot, RawField } from './form-fields.ts';

const snapshotScript = readFileSync(new URL('./page-scripts/snapshot-form.js', import.meta.url), 'utf8');

const quietScript = (quietMs: number, maxMs: number) => `new Promise((resolve) => {
  const done = () => { observer.disconnect(); clearTimeout(quiet); clearTimeout(cap); resolve(true); };
  const observer = new MutationObserver(() => { clearTimeout(quiet); quiet = setTimeout(done, ${quietMs}); });
  let quiet = setTimeout(done, ${quietMs});
  const cap = setTimeout(done, ${maxMs});
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})`;

/**
 * Waits until the page's DOM has been quiet for `quietMs` (scripts rendering a form), at most
 * `maxMs`. Cheaper than network idle, which costs 500 ms of silence on every page.
 */
export async function settle(page: Page, quietMs: number, maxMs: number): Promise<void> {
  await page.evaluate(quietScript(quietMs, maxMs)).catch(() => page.waitForTimeout(Math.min(quietMs * 3, maxMs)));
}

/** Counts the work the miner's input starts in each frame; installed on the context before any page loads. */
export const pendingWorkScript = readFileSync(new URL('./page-scripts/pending-work.js', import.meta.url), 'utf8');

/**
 * Waits for a frame's reaction to the miner's last input (a choice, a click): until none of the
 * timers, frames and requests it started are pending and the DOM has been quiet for `quietMs`, at
 * most `maxMs`. A frame without the counter (its init script did not run) gets a plain quiet
 * period of `fallbackQuietMs`.
 */
export async function settleAfterInput(frame: Frame, quietMs: number, maxMs: number, fallbackQuietMs = 60): Promise<void> {
  await frame
    .evaluate(`window.__quarryPendingWork ? window.__quarryPendingWork.settle(${quietMs}, ${maxMs}) : ${quietScript(fallbackQuietMs, maxMs)}`)
    .catch(() => frame.waitForTimeout(Math.min(fallbackQuietMs * 3, maxMs)));
}

/** Every frame's controls, main frame first; a frame that goes away mid-read counts as empty. */
export async function snapshotPage(page: Page): Promise<FormSnapshot> {
  const fields: RawField[] = [];
  let text = '';
  for (const frame of page.frames()) {
    const result = (await frame.evaluate(snapshotScript).catch(() => null)) as FormSnapshot | null;
    if (!result) continue;
    fields.push(...result.fields.map((field) => ({ ...field, order: fields.length + field.order })));
    text += ` ${result.text}`;
  }
  return { fields, text };
}

export function frameOf(page: Page, frameUrl: string): Frame {
  return page.frames().find((frame) => frame.url() === frameUrl) ?? page.mainFrame();
}

/**
 * Options of custom comboboxes exist only while their list is open: open it (a click, or ArrowDown
 * when a click does not), read the options of the listbox it controls (or the one that appeared),
 * close it again. A control that says it is open (aria-expanded) gets time to render its options;
 * one that says nothing and shows none once the DOM is quiet opened nothing (a typeahead waiting
 * for input), and is left at once instead of after the full wait (bench mining-throughput).
 */
export async function readComboboxOptions(page: Page, field: RawField): Promise<string[]> {
  if (!field.selector) return [];
  const frame = frameOf(page, field.frameUrl);
  const control = frame.locator(field.selector).first();
  const expanded = () => control.getAttribute('aria-expanded').catch(() => null);
  try {
    await control.click({ timeout: 1_000 });
    // Some menus open on the keyboard only (react-select with openMenuOnClick={false}).
    if ((await expanded()) === 'false' && !field.listboxId) await control.press('ArrowDown', { timeout: 1_000 });
    const state = await expanded();
    // A control that opens no list says so at once.
    if (state === 'false' && !field.listboxId) return [];
    const listbox = field.listboxId ? frame.locator(`[id="${field.listboxId}"]`) : frame.locator('[role="listbox"]:visible').last();
    const options = listbox.locator('[role="option"]');
    if (state === 'true') {
      await options.first().waitFor({ timeout: 700 });
    } else {
      await settleAfterInput(frame, 30, 700);
      if ((await options.count()) === 0) return [];
    }
    const labels = (await options.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim()).filter(Boolean);
    return [...new Set(labels)];
  } catch {
    return [];
  } finally {
    // Whatever opened, or failed to, is closed again before the next control.
    await page.keyboard.press('Escape').catch(() => {});
  }
}
