import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import type { FormSnapshot, RawField } from './form-fields.ts';

const snapshotScript = readFileSync(new URL('./page-scripts/snapshot-form.js', import.meta.url), 'utf8');

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
 * Options of custom comboboxes exist only while their list is open: open it, read the options of
 * the listbox it controls (or the one that appeared), close it again.
 */
export async function readComboboxOptions(page: Page, field: RawField): Promise<string[]> {
  if (!field.selector) return [];
  const frame = frameOf(page, field.frameUrl);
  const control = frame.locator(field.selector).first();
  try {
    await control.click({ timeout: 1_000 });
    const listbox = field.listboxId ? frame.locator(`[id="${field.listboxId}"]`) : frame.locator('[role="listbox"]:visible').last();
    await listbox.locator('[role="option"]').first().waitFor({ timeout: 700 });
    const options = (await listbox.locator('[role="option"]').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim()).filter(Boolean);
    await page.keyboard.press('Escape');
    return [...new Set(options)];
  } catch {
    await page.keyboard.press('Escape').catch(() => {});
    return [];
  }
}
