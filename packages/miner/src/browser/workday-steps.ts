import { readFileSync } from 'node:fs';
import type { Answer, Question } from '@quarry/contracts';
import type { Locator, Page } from 'playwright-core';
import { buildQuestion, choices } from '../question-builder.ts';
import { syntheticAnswers } from '../synthetic-answers.ts';
import { settleAfterInput } from './page-snapshot.ts';

const readStepScript = readFileSync(new URL('./page-scripts/workday-step.js', import.meta.url), 'utf8');

type FieldKind = 'text' | 'textarea' | 'checkbox' | 'checkboxes' | 'yesNo' | 'radio' | 'list' | 'prompt' | 'date' | 'file';

/** One `formField-<key>` of a step, as page-scripts/workday-step.js reads it. */
type WorkdayField = {
  key: string;
  label: string;
  required: boolean;
  kind: FieldKind;
  options: string[];
  dateParts: string[];
  accept: string;
};

export type WorkdayStep = { title: string; fields: WorkdayField[] };

/** Why a step could not be got through with placeholders: the tenant's words, or what the page did. */
export class StepRefused extends Error {}

/**
 * What a field of a resumed application may hold that typing over it does not replace, and the
 * buttons a person removes it with: files the box lists as uploaded, items chosen in a
 * type-to-add prompt; where the box says it refused an upload; and the words of a list that
 * holds no choice, which are also the option that takes a choice back where the list offers one.
 */
export type DraftMarks = { file: string; deleteFile: string; chosen: string; removeChosen: string; fileError: string; noChoice: string };

/**
 * Workday's (the applier's Workday recipe empties a resumed draft by them): a listed file with its
 * Delete button (upload.html's `file-upload-item`), a pill with its remove charm (form.html's
 * `selectedItem` > `DELETE_charm`), a list button reading "Select One" before a choice (form.html).
 * The captures are models, not live markup.
 */
export const workdayDraftMarks: DraftMarks = {
  file: '[data-automation-id="file-upload-item"]',
  deleteFile: 'button',
  chosen: '[data-automation-id="selectedItem"]',
  removeChosen: '[data-automation-id="DELETE_charm"]',
  fileError: '[data-automation-id="errorMessage"]',
  noChoice: 'Select One',
};

const actionTimeoutMs = 5_000;
const fieldOf = (page: Page, key: string) => page.locator(`[data-automation-id="formField-${key}"]`).filter({ visible: true }).first();
const visibleOptions = (scope: Page | Locator) =>
  scope.locator('[role="option"], [data-automation-id="promptOption"]').filter({ visible: true });
const exactly = (text: string) => new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'i');

export async function readStep(page: Page): Promise<WorkdayStep> {
  return JSON.parse(String(await page.evaluate(readStepScript))) as WorkdayStep;
}

const stepTitle = async (page: Page): Promise<string> => (await readStep(page)).title;

/**
 * The options of a "Select One" list or a type-to-add prompt: they exist only while the list is
 * open (a "Select One" row is none of them). A list opens from its button (Workday draws it at the end of the page); a prompt lists on
 * Enter in its box (form.html: an empty box lists the whole catalog). Enter must not move the
 * step on, which would be a save nobody clicked: a step whose title changed fails the mining.
 */
async function readOptions(page: Page, field: WorkdayField, title: string): Promise<string[]> {
  const scope = fieldOf(page, field.key);
  if (field.kind === 'list') {
    await scope.locator('button').first().click({ timeout: actionTimeoutMs });
  } else {
    const box = scope.locator('input').first();
    await box.focus({ timeout: actionTimeoutMs });
    await box.press('Enter', { timeout: actionTimeoutMs });
  }
  const options = field.kind === 'list' ? visibleOptions(page) : visibleOptions(scope);
  await options
    .first()
    .waitFor({ state: 'visible', timeout: actionTimeoutMs })
    .catch(() => {});
  if ((await stepTitle(page)) !== title) throw new StepRefused(`pressing Enter in "${field.label}" moved the step on`);
  // A list headed by "Select One" offers it to take a choice back: no answer, not an option.
  const texts = (await options.allTextContents())
    .map((text) => text.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter((text) => text.length > 0 && text !== workdayDraftMarks.noChoice);
  await closeLists(page);
  return texts;
}

/** Closes an open list as a person would: Escape, else a click on the step's heading. */
async function closeLists(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  if ((await page.locator('[role="listbox"]').filter({ visible: true }).count()) > 0) {
    await page
      .locator('[data-automation-id="progressBarActiveStep"]')
      .filter({ visible: true })
      .first()
      .click({ timeout: actionTimeoutMs })
      .catch(() => {});
  }
}

const inputTypes: Record<FieldKind, Question['inputType']> = {
  text: 'Text',
  textarea: 'TextArea',
  checkbox: 'Boolean',
  yesNo: 'Boolean',
  radio: 'SelectOne',
  list: 'SelectOne',
  checkboxes: 'SelectMultiple',
  prompt: 'SelectMultiple',
  date: 'Date',
  file: 'File',
};

/**
 * The questions of the step the page shows, by Workday's field keys (the ids the applier's
 * Workday recipe finds the fields by), labelled with the step's title. Yes / No radios are a
 * Boolean; lists and prompts carry the options they list once opened.
 */
export async function stepQuestions(page: Page, step: WorkdayStep): Promise<Question[]> {
  const questions: Question[] = [];
  for (const field of step.fields) {
    const options = field.kind === 'list' || field.kind === 'prompt' ? await readOptions(page, field, step.title) : field.options;
    const selectable = ['radio', 'list', 'checkboxes', 'prompt'].includes(field.kind);
    const accept = field.accept
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    questions.push(
      buildQuestion({
        id: field.key,
        question: field.label,
        inputType: inputTypes[field.kind],
        label: step.title,
        mandatory: field.required,
        name: field.key,
        ...(selectable ? { options: choices(options) } : {}),
        ...(accept.length > 0 ? { accept } : {}),
      }),
    );
  }
  return questions;
}

/** A one-page PDF for a required file box: what the tenant keeps in the draft says what it is. */
const placeholderPdf = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj ' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>>>>>>>endobj ' +
    '4 0 obj<</Length 88>>stream\nBT /F1 12 Tf 72 720 Td (Placeholder chosen while reading the form; not a resume.) Tj ET\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** The placeholder's name in the file box, as the draft lists it. */
const placeholderFileName = 'jane-doe-cv.pdf';

const textOf = (value: unknown) => (Array.isArray(value) ? String(value[0] ?? '') : String(value ?? ''));

/**
 * A field the draft already answers with what a fill would add to rather than replace: a listed
 * file, a chosen pill, a ticked box of a group. Mining the posting again leaves it as it is, so
 * the draft never piles up placeholders (and a group's tick is not clicked off).
 */
async function holdsDraftChoice(scope: Locator, field: WorkdayField): Promise<boolean> {
  if (field.kind === 'file') return (await scope.locator(workdayDraftMarks.file).count()) > 0;
  if (field.kind === 'prompt') return (await scope.locator(workdayDraftMarks.chosen).count()) > 0;
  if (field.kind === 'checkboxes') return (await scope.locator('input[type="checkbox"]:checked').count()) > 0;
  return false;
}

/**
 * Fills the step's required fields, and only those, with the synthetic answers: the least the
 * tenant takes before "Save and Continue" moves on, since each save keeps the step in the
 * candidate's draft, and every value left there is one an application must answer anyway.
 * Texts count once focus leaves their box (Workday keeps a value only then). A required file
 * box gets the placeholder PDF, unless the draft already lists a file there; the tenant's
 * refusal of it ends the reading.
 */
export async function fillPlaceholders(page: Page, step: WorkdayStep, questions: Question[]): Promise<Answer[]> {
  const used: Answer[] = [];
  for (const field of step.fields) {
    const question = questions.find((candidate) => candidate.id === field.key);
    if (!field.required || !question) continue;
    const answer = syntheticAnswers([question])[0];
    if (!answer) continue;
    const scope = fieldOf(page, field.key);
    if (await holdsDraftChoice(scope, field)) continue;
    switch (field.kind) {
      case 'text':
      case 'textarea': {
        const box = scope.locator('input, textarea').first();
        await box.fill(textOf(answer.value), { timeout: actionTimeoutMs });
        await box.blur({ timeout: actionTimeoutMs });
        break;
      }
      case 'date': {
        const [year = '', month = '', day = ''] = textOf(answer.value).split('-');
        const parts: Record<string, string> = { Year: year, Month: month, Day: day };
        for (const part of field.dateParts) {
          const box = scope.locator(`[data-automation-id="dateSection${part}-input"]`).first();
          await box.fill(parts[part] ?? '', { timeout: actionTimeoutMs });
          await box.blur({ timeout: actionTimeoutMs });
        }
        break;
      }
      case 'checkbox':
        await scope.locator('input[type="checkbox"]').first().check({ timeout: actionTimeoutMs });
        break;
      case 'yesNo':
      case 'radio':
      case 'checkboxes': {
        const wanted = field.kind === 'yesNo' ? (answer.value ? 'Yes' : 'No') : textOf(answer.value);
        await scope
          .locator('label')
          .filter({ hasText: exactly(wanted) })
          .first()
          .click({ timeout: actionTimeoutMs });
        break;
      }
      case 'list':
        await scope.locator('button').first().click({ timeout: actionTimeoutMs });
        await visibleOptions(page)
          .filter({ hasText: exactly(textOf(answer.value)) })
          .first()
          .click({ timeout: actionTimeoutMs });
        break;
      case 'prompt': {
        const box = scope.locator('input').first();
        await box.focus({ timeout: actionTimeoutMs });
        await box.press('Enter', { timeout: actionTimeoutMs });
        await visibleOptions(scope)
          .filter({ hasText: exactly(textOf(answer.value)) })
          .first()
          .click({ timeout: actionTimeoutMs });
        break;
      }
      case 'file':
        await choosePlaceholderFile(page, field, scope);
        break;
    }
    await settleAfterInput(page.mainFrame(), 50, 1_000);
    used.push(answer);
  }
  return used;
}

/** Chooses the placeholder PDF and waits for the box to list it (the upload is done) or say why not. */
async function choosePlaceholderFile(page: Page, field: WorkdayField, scope: Locator): Promise<void> {
  await scope
    .locator('input[type="file"]')
    .first()
    .setInputFiles({ name: placeholderFileName, mimeType: 'application/pdf', buffer: placeholderPdf }, { timeout: actionTimeoutMs });
  const listed = scope.locator(workdayDraftMarks.file).filter({ visible: true });
  const refused = scope.locator(workdayDraftMarks.fileError).filter({ visible: true });
  await listed
    .or(refused)
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 })
    .catch(() => {});
  if ((await refused.count()) > 0)
    throw new StepRefused(
      `Workday refused the placeholder file in "${field.label}": ${((await refused.first().textContent()) ?? '').trim()}`,
    );
  if ((await listed.count()) === 0) throw new StepRefused(`the placeholder file in "${field.label}" never showed as uploaded`);
}

/** The step's own button to the next one: "Save and Continue", never Submit. */
const saveAndContinue = (page: Page) =>
  page.getByRole('button', { name: /^\s*(save and continue|next|continue)\b/i }).filter({ visible: true });

export const hasNextStep = async (page: Page): Promise<boolean> => (await saveAndContinue(page).count()) > 0;

/**
 * Presses "Save and Continue" and waits for the next step (its title changes), or for the
 * tenant's refusal under a field. The save keeps the step in the draft; nothing is submitted.
 */
export async function saveStep(page: Page, title: string, waitMs: number): Promise<void> {
  await saveAndContinue(page).first().click({ timeout: actionTimeoutMs });
  const errors = page.locator('[data-automation-id="errorMessage"]').filter({ visible: true });
  for (const until = Date.now() + waitMs; Date.now() < until; await page.waitForTimeout(150)) {
    if ((await stepTitle(page)) !== title) return;
    if ((await errors.count()) > 0) {
      const said = (await errors.allTextContents()).map((text) => text.trim()).join(' ');
      throw new StepRefused(`Workday did not save "${title}" with placeholder answers: ${said}`);
    }
  }
  throw new StepRefused(`"${title}" did not move on within ${Math.round(waitMs / 1_000)} s of Save and Continue`);
}
