import { frameOf, type LocatedQuestion, type RawField } from '@quarry/miner';
import type { Locator, Page } from 'playwright-core';
import type { FileToUpload } from './applier-port.ts';
import { callApplierOn } from './applier-page.ts';

/** A value the page cannot take (no such option, no control): the application stops before the submit. */
export class FillError extends Error {}

/** How long one control may take to become ready for an action (typing, a list opening). */
const actionTimeoutMs = 5_000;

export type FillContext = {
  page: Page;
  /** For each control of the last snapshot (by `order`), its position among controls with the same selector in its frame. */
  nth: Map<number, number>;
};

/** The position of each control among those its selector also matches (radios sharing a name), in snapshot order. */
export function positionsOf(fields: RawField[]): Map<number, number> {
  const seen = new Map<string, number>();
  const nth = new Map<number, number>();
  for (const field of fields) {
    const key = `${field.frameUrl} ${field.selector}`;
    const count = seen.get(key) ?? 0;
    nth.set(field.order, count);
    seen.set(key, count + 1);
  }
  return nth;
}

/** The control as Playwright finds it: by the selector the snapshot built (id, else tag and name), else by role and name. */
function locate(context: FillContext, field: RawField): Locator {
  const frame = frameOf(context.page, field.frameUrl);
  if (field.selector) return frame.locator(field.selector).nth(context.nth.get(field.order) ?? 0);
  if (field.role) return frame.getByRole(field.role as 'radio', { name: field.label, exact: true }).first();
  throw new FillError(`the control "${field.label}" has neither id nor name to find it by`);
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();
const texts = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((entry) => entry !== undefined && entry !== null && entry !== '').map(String);
const truthy = (value: unknown) => value === true || (typeof value === 'string' && /^(true|yes|on|1)$/i.test(value.trim()));

function isFile(value: unknown): value is FileToUpload {
  return (
    typeof value === 'object' && value !== null && (value as FileToUpload).type === 'File' && Buffer.isBuffer((value as FileToUpload).bytes)
  );
}

/** The form a date box takes: `<input type=date>` wants YYYY-MM-DD, `month` YYYY-MM; a text box gets the date as given. */
function dateFor(field: RawField, value: string): string {
  if (field.type === 'date') return value.slice(0, 10);
  if (field.type === 'month') return value.slice(0, 7);
  if (field.type === 'datetime-local') return value.slice(0, 16);
  return value;
}

/**
 * Fills one located question as a person would: types into boxes, picks options of selects and
 * custom lists by their text, ticks radios and checkboxes, hands the file's bytes to the file
 * input (never a path on disk). Repeatable groups are filled by the caller, which adds instances.
 */
export async function fillQuestion(context: FillContext, located: LocatedQuestion, value: unknown): Promise<void> {
  const { question, fields } = located;
  const first = fields[0];
  if (!first) throw new FillError(`question ${question.id} has no control on the page`);
  switch (question.inputType) {
    case 'FragmentedQuestion': {
      const parts = located.instances[0] ?? new Map<string, LocatedQuestion>();
      for (const part of Array.isArray(value) ? (value as Array<{ id: string; value: unknown }>) : []) {
        const partLocated = parts.get(part.id);
        if (!partLocated) throw new FillError(`question ${question.id} has no part ${part.id} on the page`);
        await fillQuestion(context, partLocated, part.value);
      }
      return;
    }
    case 'File': {
      const files = (Array.isArray(value) ? value : [value]).filter(isFile);
      if (files.length === 0) throw new FillError(`question ${question.id} wants a file`);
      await locate(context, first).setInputFiles(
        files.map((file) => ({ name: file.filename, mimeType: file.contentType, buffer: file.bytes })),
        { timeout: actionTimeoutMs },
      );
      return;
    }
    case 'Boolean':
      await setChecked(context, first, truthy(value));
      return;
    case 'SelectOne':
    case 'SelectMultiple': {
      // A Boolean answer to a question the page asks as Yes / No choices.
      const wanted = typeof value === 'boolean' ? [value ? 'Yes' : 'No'] : texts(value);
      if (first.tag === 'select') return selectNative(context, first, question.id, wanted);
      if (first.combobox) {
        for (const answer of wanted) await pickFromList(context, first, question.id, answer);
        return;
      }
      return checkMembers(context, fields, question.id, question.inputType === 'SelectOne', wanted);
    }
    default: {
      const text = texts(value).join(', ');
      const box = locate(context, first);
      if (first.combobox) return pickFromList(context, first, question.id, text);
      await box.fill(question.inputType === 'Date' ? dateFor(first, text) : text, { timeout: actionTimeoutMs });
    }
  }
}

async function setChecked(context: FillContext, field: RawField, checked: boolean): Promise<void> {
  const control = locate(context, field);
  if (field.tag === 'input') return control.setChecked(checked, { timeout: actionTimeoutMs });
  // A drawn checkbox (role=checkbox) says its state in aria-checked; a click toggles it.
  if (((await control.getAttribute('aria-checked', { timeout: actionTimeoutMs })) === 'true') !== checked)
    await control.click({ timeout: actionTimeoutMs });
}

async function selectNative(context: FillContext, field: RawField, id: string, wanted: string[]): Promise<void> {
  const select = locate(context, field);
  const options = await callApplierOn<Array<{ value: string; label: string }>>(select, 'selectOptions', actionTimeoutMs);
  const values = wanted.map((answer) => {
    const option =
      options.find((candidate) => normalise(candidate.label) === normalise(answer)) ??
      options.find((candidate) => candidate.value === answer);
    if (!option)
      throw new FillError(
        `question ${id}: "${answer}" is not one of its options (${options
          .map((candidate) => candidate.label.trim())
          .filter(Boolean)
          .slice(0, 10)
          .join(', ')})`,
      );
    return option.value;
  });
  await select.selectOption(values, { timeout: actionTimeoutMs });
}

/** Radio and checkbox groups: the members whose label is a wanted answer are ticked; the other checkboxes are cleared. */
async function checkMembers(context: FillContext, members: RawField[], id: string, one: boolean, wanted: string[]): Promise<void> {
  const wants = new Set(wanted.map(normalise));
  const chosen = members.filter((member) => wants.has(normalise(member.label || member.value)));
  const missing = wanted.filter((answer) => !chosen.some((member) => normalise(member.label || member.value) === normalise(answer)));
  if (missing.length > 0)
    throw new FillError(
      `question ${id}: "${missing.join('", "')}" is not one of its options (${members.map((member) => member.label).join(', ')})`,
    );
  for (const member of members) {
    const want = chosen.includes(member);
    if (one && !want) continue;
    const isRadio = member.type === 'radio' || member.role === 'radio';
    if (isRadio) {
      if (want)
        await (member.tag === 'input'
          ? locate(context, member).check({ timeout: actionTimeoutMs })
          : locate(context, member).click({ timeout: actionTimeoutMs }));
    } else {
      await setChecked(context, member, want);
    }
  }
}

/**
 * A custom list (react-select, Radix, a typeahead): open it, type the answer as a person would so
 * a long or remote list narrows down, then click the option whose text is the answer.
 */
async function pickFromList(context: FillContext, field: RawField, id: string, wanted: string): Promise<void> {
  const control = locate(context, field);
  const frame = frameOf(context.page, field.frameUrl);
  await control.click({ timeout: actionTimeoutMs });
  const editable = await control.isEditable({ timeout: actionTimeoutMs });
  if (editable) {
    await control.fill('', { timeout: actionTimeoutMs });
    await control.pressSequentially(wanted, { timeout: actionTimeoutMs });
  }
  const scope = field.listboxId ? frame.locator(`[id="${field.listboxId.replace(/"/g, '\\"')}"]`) : frame;
  const exact = scope.getByRole('option', { name: wanted, exact: true }).filter({ visible: true }).first();
  const loose = scope
    .getByRole('option')
    .filter({ visible: true, hasText: new RegExp(`^\\s*${wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'i') })
    .first();
  const option = await exact.waitFor({ state: 'visible', timeout: actionTimeoutMs }).then(
    () => exact,
    async () => ((await loose.count()) > 0 ? loose : null),
  );
  if (!option) {
    await control.press('Escape').catch(() => {});
    throw new FillError(`question ${id}: the list offers no option "${wanted}"`);
  }
  await option.click({ timeout: actionTimeoutMs });
}

/**
 * Adds one instance to a repeatable group: the "Add another" button of the container the group's
 * first control sits in (the container the miner recognised the group by), clicked as a person would.
 */
export async function addInstance(context: FillContext, field: RawField): Promise<void> {
  const frame = frameOf(context.page, field.frameUrl);
  const index = await callApplierOn<number>(locate(context, field), 'addAnotherIndex', actionTimeoutMs);
  if (index < 0) throw new FillError(`no "Add another" button beside the group of ${field.name || field.label}`);
  await frame.locator('button, a').nth(index).click({ timeout: actionTimeoutMs });
}
