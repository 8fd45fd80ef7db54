import type { Question } from '@quarry/contracts';
import type { DraftMarks } from '@quarry/miner';
import type { Locator, Page } from 'playwright-core';
import type { FileToUpload } from './applier-port.ts';
import type { AtsRecipe } from './ats-recipes.ts';
import { FillError } from './fill-question.ts';

const actionTimeoutMs = 5_000;
const texts = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((entry) => entry !== undefined && entry !== null && entry !== '').map(String);
const truthy = (value: unknown) => value === true || (typeof value === 'string' && /^(true|yes|on|1)$/i.test(value.trim()));
const isFile = (value: unknown): value is FileToUpload =>
  typeof value === 'object' && value !== null && (value as FileToUpload).type === 'File' && Buffer.isBuffer((value as FileToUpload).bytes);
const exactly = (text: string) => new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'i');

/**
 * Fills a question whose control the page does not name by the mined id, inside the element the
 * recipe's `fieldScope` points at (Ashby's `div[data-field-path]`) or the block its `questionBlock`
 * finds by the question's words (BambooHR's unnamed file boxes), with the vendor's widgets:
 * Yes/No buttons marked by `aria-pressed`, radios and checkboxes by their label, a button whose
 * menu lists `role=menuitem` items, a search box or list button whose options appear as
 * `role=option`, a date (one box, or month / day / year boxes) or text box, a file input or the
 * chooser a drop zone opens. `beforeWrite` runs right before the control is touched (the
 * at-most-once record, when touching it writes to the vendor).
 * False when the page has no such scope (the question is not shown on this step).
 */
export async function fillScoped(
  page: Page,
  recipe: AtsRecipe,
  question: Question,
  value: unknown,
  beforeWrite: () => Promise<void>,
): Promise<boolean> {
  const scope = await scopeOf(page, recipe, question);
  if (!scope) return false;
  await beforeWrite();
  switch (question.inputType) {
    case 'File': {
      const files = (Array.isArray(value) ? value : [value]).filter(isFile);
      if (files.length === 0) throw new FillError(`question ${question.id} wants a file`);
      const payload = files.map((file) => ({ name: file.filename, mimeType: file.contentType, buffer: file.bytes }));
      const input = scope.locator('input[type="file"]').first();
      if (recipe.resumedDraft && (await input.count()) > 0) {
        // A box that lists its uploads (Workday's) takes one file per choice, each beside the last.
        const listed = await scope.locator(recipe.resumedDraft.file).count();
        for (const [index, file] of payload.entries()) {
          await input.setInputFiles(file, { timeout: actionTimeoutMs });
          await waitForListed(scope, recipe.resumedDraft, listed + index + 1);
        }
        return true;
      }
      if ((await input.count()) > 0 || !recipe.uploadTrigger) {
        await input.setInputFiles(payload, { timeout: actionTimeoutMs });
        return true;
      }
      // No input in the field: the file goes to the chooser its drop zone opens, as a person's would.
      const chooser = page.waitForEvent('filechooser', { timeout: actionTimeoutMs });
      await scope.locator(recipe.uploadTrigger).first().click({ timeout: actionTimeoutMs });
      await (await chooser).setFiles(payload, { timeout: actionTimeoutMs });
      return true;
    }
    case 'Boolean': {
      const buttons = scope.locator('button[aria-pressed]');
      if ((await buttons.count()) > 0) {
        await pressButton(scope, truthy(value) ? 'Yes' : 'No', question.id);
        return true;
      }
      // Yes / No radios (Workable draws them) or a Yes / No list (Workday's), else one checkbox.
      if ((await scope.locator(`input[type="radio"], [role="radio"], ${listButton}`).count()) > 0) {
        await choose(page, scope, question.id, truthy(value) ? 'Yes' : 'No');
        return true;
      }
      await scope.locator('input[type="checkbox"]').first().setChecked(truthy(value), { timeout: actionTimeoutMs });
      return true;
    }
    case 'SelectOne':
    case 'SelectMultiple': {
      for (const wanted of texts(value)) await choose(page, scope, question.id, wanted);
      return true;
    }
    case 'ArrayOfObjects': {
      // One entry, whose parts are scoped by their own ids (Ashby's education history).
      const instances = Array.isArray(value) ? (value as Array<Array<{ id: string; value: unknown }>>) : [];
      if (instances.length > 1) throw new FillError(`question ${question.id}: the page takes one entry, ${instances.length} were given`);
      for (const part of instances[0] ?? []) {
        const partQuestion = (question.options ?? []).find((option): option is Question => 'id' in option && option.id === part.id);
        if (!partQuestion) throw new FillError(`question ${question.id} has no part ${part.id}`);
        if (!(await fillScoped(page, recipe, partQuestion, part.value, beforeWrite)))
          throw new FillError(`question ${question.id}: no control for ${part.id} on the page`);
      }
      return true;
    }
    default: {
      const box = scope
        .locator('input:not([type="hidden"]):not([type="file"]):not([type="radio"]):not([type="checkbox"]), textarea')
        .first();
      const text = texts(value).join(', ');
      if ((await box.getAttribute('role')) === 'combobox') {
        await choose(page, scope, question.id, text);
        return true;
      }
      if (question.inputType === 'Date' && (await fillDateParts(scope, text))) return true;
      const type = await box.getAttribute('type');
      await box.fill(type === 'date' ? text.slice(0, 10) : text, { timeout: actionTimeoutMs });
      // Ashby saves a box when it loses focus: leave it as a person would.
      await box.blur({ timeout: actionTimeoutMs });
      return true;
    }
  }
}

/**
 * After a file is chosen in a box that lists its uploads: waits until it lists `count` files or
 * says why not (the step's save then reads the refusal), so the save carries the upload.
 */
async function waitForListed(scope: Locator, marks: DraftMarks, count: number): Promise<void> {
  const listed = scope.locator(marks.file).nth(count - 1);
  const refused = scope.locator(marks.fileError).filter({ visible: true }).first();
  await listed
    .or(refused)
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 })
    .catch(() => {});
}

/** A button that opens a list of options (Workday's "Select One"). */
export const listButton = 'button[aria-haspopup="listbox"]';

/**
 * An ISO date into a date drawn as separate month / day / year boxes (Workday's), each left as a
 * person leaves it; false when the field has no such boxes.
 */
async function fillDateParts(scope: Locator, iso: string): Promise<boolean> {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!match) return false;
  const [, year, month, day] = match as unknown as [string, string, string, string];
  const parts: Array<[string, string]> = [
    ['Month', month],
    ['Day', day],
    ['Year', year],
  ];
  let placed = 0;
  for (const [part, text] of parts) {
    const box = scope.locator(`input[data-automation-id*="${part}" i], input[aria-label="${part}" i]`).first();
    if ((await box.count()) === 0) continue;
    await box.fill(text, { timeout: actionTimeoutMs });
    await box.blur({ timeout: actionTimeoutMs });
    placed += 1;
  }
  return placed > 0;
}

/**
 * A recipe's `fieldScope` for one mined id: `{id}` is the id, `{domId}` the element id Rails makes
 * of a field name (`candidate[resume_remote_url]` → `candidate_resume_remote_url`).
 */
export function fieldScopeFor(template: string, id: string): string {
  const quoted = (text: string) => text.replace(/"/g, '\\"');
  const domId = id.replace(/\]\[|[^-a-zA-Z0-9:.]/g, '_').replace(/_+$/, '');
  return template.replaceAll('{id}', quoted(id)).replaceAll('{domId}', quoted(domId));
}

/**
 * The element holding a question's control: the recipe's `fieldScope` for its id, else the
 * innermost `questionBlock` that shows the question's own words as a heading or label (an
 * asterisk after them allowed). Null when the page shows neither.
 */
async function scopeOf(page: Page, recipe: AtsRecipe, question: Question): Promise<Locator | null> {
  if (recipe.fieldScope) {
    const scope = page.locator(fieldScopeFor(recipe.fieldScope, question.id)).first();
    if ((await scope.count()) > 0 && (await scope.isVisible())) return scope;
  }
  const words = question.question.replace(/\s+/g, ' ').trim();
  if (!recipe.questionBlock || !words) return null;
  const heading = new RegExp(`^\\s*${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+')}\\s*\\*?\\s*$`, 'i');
  // Every block around the words matches; the last in document order is the innermost.
  const block = page
    .locator(recipe.questionBlock)
    .filter({ has: page.getByText(heading) })
    .last();
  return (await block.count()) > 0 && (await block.isVisible()) ? block : null;
}

/** A Yes/No button pair: click the wanted one and wait until the page marks it pressed. */
async function pressButton(scope: Locator, label: string, id: string): Promise<void> {
  const button = scope
    .locator('button[aria-pressed]')
    .filter({ hasText: exactly(label) })
    .first();
  if ((await button.count()) === 0) throw new FillError(`question ${id}: no "${label}" button`);
  if ((await button.getAttribute('aria-pressed')) !== 'true') await button.click({ timeout: actionTimeoutMs });
  await button
    .and(scope.locator('[aria-pressed="true"]'))
    .waitFor({ timeout: actionTimeoutMs })
    .catch(() => {
      throw new FillError(`question ${id}: "${label}" did not stay pressed`);
    });
}

/** One option: a radio or checkbox by its label, a native select, or a search box's listed option. */
async function choose(page: Page, scope: Locator, id: string, wanted: string): Promise<void> {
  const name = exactly(wanted);
  const checkable = scope.getByRole('radio', { name }).or(scope.getByRole('checkbox', { name })).filter({ visible: true }).first();
  if ((await checkable.count()) > 0) {
    if (!(await checkable.isChecked())) await checkable.click({ timeout: actionTimeoutMs });
    return;
  }
  // A drawn option: a row whose words are the option, holding the box a person clicks.
  const row = scope
    .locator('*:has(> [role="radio"], > [role="checkbox"], > input[type="radio"], > input[type="checkbox"])')
    .filter({ hasText: name })
    .first();
  if ((await row.count()) > 0) {
    const drawn = row.locator(':scope > [role="radio"], :scope > [role="checkbox"]').first();
    const box = (await drawn.count()) > 0 ? drawn : row.locator(':scope > input').first();
    if ((await box.getAttribute('aria-checked')) !== 'true' && !(await box.isChecked().catch(() => false)))
      await box.click({ timeout: actionTimeoutMs });
    return;
  }
  // A drawn list (BambooHR's Fabric select): a button that opens a menu of items, the native select beside it empty.
  const menuButton = scope.locator('button[aria-haspopup="true"], button[aria-haspopup="menu"]').first();
  if ((await menuButton.count()) > 0) {
    await menuButton.click({ timeout: actionTimeoutMs });
    const item = page.getByRole('menuitem', { name }).filter({ visible: true }).first();
    await item.waitFor({ state: 'visible', timeout: actionTimeoutMs }).catch(() => {
      throw new FillError(`question ${id}: the menu offers no item "${wanted}"`);
    });
    await item.click({ timeout: actionTimeoutMs });
    return;
  }
  const select = scope.locator('select').first();
  if ((await select.count()) > 0) {
    await select.selectOption({ label: wanted }, { timeout: actionTimeoutMs });
    return;
  }
  const box = scope.getByRole('combobox').or(scope.locator(listButton)).first();
  if ((await box.count()) === 0) throw new FillError(`question ${id}: "${wanted}" is not one of its options`);
  await box.click({ timeout: actionTimeoutMs });
  const typed = (await box.evaluate((element) => element.matches('input, textarea, [contenteditable]'))) && (await box.isEditable());
  if (typed) {
    await box.fill('', { timeout: actionTimeoutMs });
    await box.pressSequentially(wanted, { timeout: actionTimeoutMs });
  }
  const option = page
    .getByRole('option')
    .filter({ visible: true, hasText: exactly(wanted) })
    .first();
  // A search box that lists only on Enter (Workday's prompts): pressed only while nothing is
  // listed, so Enter never picks an option the box offered first.
  if (
    typed &&
    !(await option.waitFor({ state: 'visible', timeout: 1_500 }).then(
      () => true,
      () => false,
    )) &&
    (await page.getByRole('option').filter({ visible: true }).count()) === 0
  ) {
    await box.press('Enter', { timeout: actionTimeoutMs });
  }
  await option.waitFor({ state: 'visible', timeout: actionTimeoutMs }).catch(() => {
    throw new FillError(`question ${id}: the list offers no option "${wanted}"`);
  });
  await option.click({ timeout: actionTimeoutMs });
}
