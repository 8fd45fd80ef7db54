import type { Question } from '@quarry/contracts';
import type { Locator, Page } from 'playwright-core';
import type { AtsRecipe } from './ats-recipes.ts';
import { callApplier } from './applier-page.ts';
import { FillError } from './fill-question.ts';
import { fieldScopeFor, listButton } from './recipe-fill.ts';

const actionTimeoutMs = 5_000;
const normalise = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();
const texts = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((entry) => entry !== undefined && entry !== null && entry !== '').map(String);

/** What one field of the step holds, as the page shows it. */
type Held = {
  id: string;
  files: number;
  chosen: number;
  ticked: Array<{ index: number; label: string }>;
  typed: number[];
  listed: number[];
  radioChosen: boolean;
};

/** The boxes a person types into (not a prompt's search box, whose text is no value). */
const typedBoxes =
  'input:not([type="hidden"]):not([type="file"]):not([type="radio"]):not([type="checkbox"]):not([role="combobox"]), textarea';

/**
 * Empties what a resumed draft holds in the step's fields that the candidate's answers do not
 * set, before the step is filled (a vendor that keeps an unfinished application shows it again:
 * Workday's draft, mining's placeholders included). Every listed file goes, so that exactly the
 * candidate's files are there once they are uploaded; every chosen pill goes, the candidate's
 * choices are added again; a group's ticks that are not the candidate's are cleared; a question
 * the candidate leaves unanswered loses its typed text and ticks, and its list (a "Select One"
 * list, a Yes/No list) is set back to the list's own "no choice" row. What the candidate answers
 * in a box, a date or a list is typed or chosen over (a fill replaces it). Where the page offers
 * no way back to no answer — Yes/No radios, once chosen, or a list without that row — the draft's
 * answer would be submitted as the candidate's: a FillError, raised before the step's first
 * change for radios, so the application ends before Submit.
 * `beforeWrite` runs before the first change; returns how many changes were made.
 */
export async function emptyResumedDraft(
  page: Page,
  recipe: AtsRecipe,
  questions: Map<string, Question>,
  answers: Map<string, unknown>,
  beforeWrite: () => Promise<void>,
): Promise<number> {
  const marks = recipe.resumedDraft;
  if (!marks || !recipe.fieldScope) return 0;
  const fieldScope = recipe.fieldScope;
  const scopes = [...questions.keys()].map((id) => [id, fieldScopeFor(fieldScope, id)] as const);
  const held = await callApplier<Held[]>(page.mainFrame(), 'draftHeld', { scopes, marks, typed: typedBoxes, lists: listButton });
  const stuck = held.find((field) => field.radioChosen && !answers.has(field.id));
  if (stuck)
    throw new FillError(
      `question ${stuck.id}: the resumed draft answers it, the candidate does not, and its radios offer no way back to no answer`,
    );
  let changes = 0;
  const change = async (act: () => Promise<void>) => {
    if (changes === 0) await beforeWrite();
    await act();
    changes += 1;
  };
  for (const field of held) {
    const question = questions.get(field.id);
    const answered = answers.has(field.id);
    const scope = page.locator(fieldScopeFor(fieldScope, field.id)).filter({ visible: true }).first();
    if (field.files > 0) await change(() => removeEvery(scope, marks.file, marks.deleteFile, field.id));
    if (field.chosen > 0) await change(() => removeEvery(scope, marks.chosen, marks.removeChosen, field.id));
    // The ticks to keep: the candidate's choices of a group; none of an unanswered question.
    const keep = !answered ? [] : question?.inputType === 'SelectMultiple' ? texts(answers.get(field.id)).map(normalise) : null;
    for (const tick of keep ? field.ticked.filter((ticked) => !keep.includes(normalise(ticked.label))) : []) {
      await change(() => scope.locator('input[type="checkbox"]').nth(tick.index).setChecked(false, { timeout: actionTimeoutMs }));
    }
    if (answered) continue;
    for (const index of field.listed)
      await change(() => chooseNoChoice(page, scope.locator(listButton).nth(index), marks.noChoice, field.id));
    for (const index of field.typed) {
      const box = scope.locator(typedBoxes).nth(index);
      await change(async () => {
        await box.fill('', { timeout: actionTimeoutMs });
        // Workday keeps a box's value when focus leaves it: an emptied one too.
        await box.blur({ timeout: actionTimeoutMs });
      });
    }
  }
  return changes;
}

/** Removes every item (a listed file, a pill) with its own button, waiting for each to go. */
async function removeEvery(scope: Locator, item: string, remove: string, id: string): Promise<void> {
  const items = scope.locator(item);
  for (let count = await items.count(); count > 0; count = await items.count()) {
    await items.first().locator(remove).first().click({ timeout: actionTimeoutMs });
    await items
      .nth(count - 1)
      .waitFor({ state: 'detached', timeout: actionTimeoutMs })
      .catch(() => {
        throw new FillError(`question ${id}: what the draft holds could not be removed`);
      });
  }
}

/**
 * Sets a list back to no choice with its own row ("Select One"), as a person would, and waits
 * until the button says so; a list without that row keeps the draft's choice: a FillError.
 */
async function chooseNoChoice(page: Page, button: Locator, noChoice: string, id: string): Promise<void> {
  await button.click({ timeout: actionTimeoutMs });
  const none = page.getByRole('option', { name: noChoice, exact: true }).filter({ visible: true }).first();
  const offered = await none.waitFor({ state: 'visible', timeout: actionTimeoutMs }).then(
    () => true,
    () => false,
  );
  if (!offered) {
    await page.keyboard.press('Escape');
    throw new FillError(
      `question ${id}: the resumed draft answers it, the candidate does not, and its list offers no "${noChoice}" to take the answer back`,
    );
  }
  await none.click({ timeout: actionTimeoutMs });
  await button
    .filter({ hasText: new RegExp(`^\\s*${noChoice.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) })
    .waitFor({ timeout: actionTimeoutMs })
    .catch(() => {
      throw new FillError(`question ${id}: the list did not go back to "${noChoice}"`);
    });
}
