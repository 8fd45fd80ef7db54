import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import { pageRulesScript } from '../generic-form-rules.ts';
import type { FormSnapshot, FrameSnapshot, RawField } from './form-fields.ts';

/** The miner's init script, in every frame before the page's own scripts: the reaction counter, the rules shared with the HTML extractor, the snapshot and the form actions. */
const pageScript = (name: string) => readFileSync(new URL(`./page-scripts/${name}`, import.meta.url), 'utf8');
export const minerPageScript = [
  pageScript('pending-work.js'),
  pageRulesScript,
  pageScript('snapshot-form.js'),
  pageScript('form-actions.js'),
].join('\n');
const notInstalled = '__quarryMiner missing';

/**
 * Calls the miner's page script in `frame`; `call` is the expression after `__quarryMiner.`. A
 * document the init script did not reach (one written by script) gets the script first. The
 * result crosses as one JSON string: Playwright's own serialization of a snapshot (dozens of
 * controls) cost the worker ~6 ms of CPU per read, JSON.parse well under one.
 */
export async function callInFrame<T>(frame: Frame, call: string): Promise<T> {
  const expression = `window.__quarryMiner
    ? Promise.resolve(window.__quarryMiner.${call}).then((value) => JSON.stringify(value === undefined ? null : value))
    : ${JSON.stringify(notInstalled)}`;
  let result = await frame.evaluate(expression);
  if (result === notInstalled) {
    await frame.evaluate(minerPageScript);
    result = await frame.evaluate(expression);
  }
  return JSON.parse(String(result)) as T;
}

/**
 * Waits until the page's DOM has been quiet for `quietMs` (scripts rendering a form), at most
 * `maxMs`. Cheaper than network idle, which costs 500 ms of silence on every page.
 */
export async function settle(page: Page, quietMs: number, maxMs: number): Promise<void> {
  await callInFrame(page.mainFrame(), `settle(${quietMs}, ${maxMs}, false)`).catch(() => page.waitForTimeout(Math.min(quietMs * 3, maxMs)));
}

/**
 * Waits for a frame's reaction to the miner's last input (a choice, a click): until none of the
 * timers, frames and requests it started are pending and the DOM has been quiet for `quietMs`, at
 * most `maxMs` (page-scripts/pending-work.js).
 */
export async function settleAfterInput(frame: Frame, quietMs: number, maxMs: number): Promise<void> {
  await callInFrame(frame, `settle(${quietMs}, ${maxMs})`).catch(() => frame.waitForTimeout(Math.min(quietMs * 3, maxMs)));
}

/** Joins frames' reads in frame order; a control's `order` counts across frames, main frame first. */
export function joinFrames(byFrame: Map<Frame, FrameSnapshot>): FormSnapshot {
  const joined: FormSnapshot = { fields: [], text: '', passwords: 0, visiblePasswords: 0, byFrame };
  for (const frame of byFrame.values()) {
    joined.fields.push(...frame.fields.map((field) => ({ ...field, order: joined.fields.length + field.order })));
    joined.text += ` ${frame.text}`;
    joined.passwords += frame.passwords;
    joined.visiblePasswords += frame.visiblePasswords;
  }
  return joined;
}

export const readFrame = (frame: Frame, withText = true): Promise<FrameSnapshot | null> =>
  callInFrame<FrameSnapshot>(frame, `snapshot(${JSON.stringify({ withText })})`).catch(() => null);

/** Every frame's controls, main frame first; a frame that goes away mid-read counts as empty. */
export async function snapshotPage(page: Page, options: { withText?: boolean } = {}): Promise<FormSnapshot> {
  const reads = new Map<Frame, FrameSnapshot>();
  for (const frame of page.frames()) {
    const read = await readFrame(frame, options.withText ?? true);
    if (read) reads.set(frame, read);
  }
  return joinFrames(reads);
}

export function frameOf(page: Page, frameUrl: string): Frame {
  return page.frames().find((frame) => frame.url() === frameUrl) ?? page.mainFrame();
}

/**
 * Options of custom comboboxes exist only while their list is open: the page script opens the
 * list, reads it and closes it again (page-scripts/form-actions.js).
 */
export async function readComboboxOptions(page: Page, field: RawField): Promise<string[]> {
  if (!field.selector) return [];
  const call = `readComboboxOptions(${JSON.stringify({ selector: field.selector, listboxId: field.listboxId })})`;
  return callInFrame<string[]>(frameOf(page, field.frameUrl), call).catch(() => []);
}
