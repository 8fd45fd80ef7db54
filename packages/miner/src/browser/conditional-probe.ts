import type { Question } from '@quarry/contracts';
import type { Page } from 'playwright-core';
import { fieldKey, fieldsToQuestions, type FormSnapshot, type RawField } from './form-fields.ts';
import { frameOf, settleAfterInput, snapshotPage } from './page-snapshot.ts';

/** Choosing one option of one control; a path of these rebuilds a state from a fresh page. */
type Choice = { field: RawField; optionIndex: number; optionLabel: string };

export type ProbeBudget = { choices: number; deadline: number; settleMs: number };

/** Past this many options a list is data (countries, years), not a branch: only its follow-up options are probed. */
const longListOptions = 25;
/** DOM quiet after a choice's own timers and requests are done: catches renders scheduled by other means (a message channel). */
const reactionQuietMs = 30;
const followUpOption = /\bother\b|please specify|not listed|self[- ]describe/i;

const probeable = (field: RawField) => (field.tag === 'select' && !field.multiple) || field.type === 'radio' || field.role === 'radio';

async function choose(page: Page, choice: Choice): Promise<void> {
  const frame = frameOf(page, choice.field.frameUrl);
  const { field } = choice;
  if (field.tag === 'select') {
    await frame.selectOption(field.selector, { label: choice.optionLabel }, { timeout: 2_000 });
  } else if (field.type === 'radio' && field.name) {
    await frame.locator(`input[type="radio"][name="${field.name}"]`).nth(choice.optionIndex).check({ force: true, timeout: 2_000 });
  } else {
    await frame.locator('[role="radio"]').filter({ hasText: choice.optionLabel }).first().click({ timeout: 2_000 });
  }
}

/**
 * Finds the questions each option reveals: choose the option, let the page settle, diff the
 * controls, attach what appeared to that option's conditionalQuestions, recurse into what
 * appeared (bounded depth), then rebuild the previous state by reloading and replaying the path.
 * Only selects and radio groups are touched: never submit, consent or upload controls.
 */
export async function probeConditionals(
  page: Page,
  snapshot: FormSnapshot,
  byKey: Map<string, Question>,
  options: {
    maxDepth: number;
    budget: ProbeBudget;
    defaultLabel: string;
    /**
     * False on a wizard's later steps, where a reload would go back to step 1. A select is put
     * back as it was; a radio group cannot be unchecked, so its last option stays chosen and what
     * that revealed joins the baseline of the diffs that follow.
     */
    reloadable?: boolean;
  },
): Promise<void> {
  const { budget } = options;
  const reloadable = options.reloadable ?? true;
  // What was changed since the state of the current path: a select can be put back as it was;
  // a radio cannot be unchecked, so it costs a reload and a replay of the path. `revealed` says
  // whether the change showed controls that putting it back must remove.
  let dirty: (Choice & { revealed: boolean }) | null = null;
  // Settled = none of the work the choice started still pending and the DOM quiet briefly
  // (capped): most pages answer a choice at once, so waiting a fixed time for each option would
  // dominate the job (bench mining-throughput), and a debounced reveal is waited for exactly.
  const settle = (field: RawField) => settleAfterInput(frameOf(page, field.frameUrl), reactionQuietMs, budget.settleMs);
  const restore = async (path: Choice[]) => {
    if (!dirty) return;
    const last = dirty;
    dirty = null;
    if (last.field.tag === 'select') {
      const put = await frameOf(page, last.field.frameUrl).selectOption(last.field.selector, last.field.value, { timeout: 2_000 }).then(() => true, () => false);
      // Putting back an option that revealed nothing has nothing to remove. Controls of the
      // baseline it hid may come back late, but a diff only counts controls outside the
      // baseline, and the next choice settles anyway.
      if (put) return last.revealed ? settle(last.field) : undefined;
    }
    // Without a reload (a wizard's later step) what cannot be put back is left as it is.
    if (!reloadable) return settle(last.field);
    await page.reload({ waitUntil: 'load' });
    for (const choice of path) await choose(page, choice);
    await settle(last.field);
  };

  const explore = async (scope: RawField[], scopeQuestions: Map<string, Question>, baseline: Set<string>, path: Choice[], depth: number) => {
    const seen = new Set<string>();
    // Small choice sets first: a yes/no question is far likelier to reveal questions than a
    // country list, and one long select must not spend the form's whole budget before them.
    const optionCount = (field: RawField) => scopeQuestions.get(fieldKey(field))?.options?.length ?? 0;
    const ordered = [...scope].sort((a, b) => optionCount(a) - optionCount(b));
    for (const field of ordered) {
      const key = fieldKey(field);
      if (!probeable(field) || seen.has(key)) continue;
      seen.add(key);
      const question = scopeQuestions.get(key);
      const answers = question?.inputType === 'SelectOne' ? (question.options ?? []) : [];
      const radio = field.tag !== 'select';
      let revealedAny = false;
      // Probing a 200-country list from the top costs seconds and reaches an arbitrary part of it;
      // the option that asks for more ("Other, please specify") is the one that reveals.
      const longList = answers.length > longListOptions;
      for (const [optionIndex, option] of answers.entries()) {
        if (!('conditionalQuestions' in option)) continue;
        if (longList && !followUpOption.test(option.answer)) continue;
        if (budget.choices <= 0 || Date.now() > budget.deadline) return;
        budget.choices -= 1;
        // Options of one radio group exclude each other: choosing the next one is the reset, and
        // what the previous option revealed must disappear (checked below against the baseline).
        // The same holds for a select whose last option revealed nothing: there is nothing to
        // undo, and a restore would cost a round trip and a settle per option.
        const sameControl = dirty !== null && fieldKey(dirty.field) === key;
        if (!(sameControl && (radio || !dirty?.revealed))) await restore(path);
        const choice = { field, optionIndex, optionLabel: option.answer };
        try {
          await choose(page, choice);
        } catch {
          continue;
        }
        dirty = { ...choice, revealed: false };
        await settle(field);
        const after = await snapshotPage(page);
        const revealed = after.fields.filter((candidate) => !baseline.has(fieldKey(candidate)));
        if (revealed.length === 0) continue;
        dirty.revealed = true;
        revealedAny = true;
        const nested = fieldsToQuestions(revealed, options.defaultLabel);
        option.conditionalQuestions = nested.questions;
        if (depth < options.maxDepth) {
          // The page is now exactly the state of path + choice: the nested level starts clean,
          // undoes its own changes, and hands back a page where only `choice` is left to undo.
          dirty = null;
          const nextBaseline = new Set(after.fields.map(fieldKey));
          await explore(revealed, nested.byKey, nextBaseline, [...path, choice], depth + 1);
          dirty = { ...choice, revealed: true };
        }
      }
      // A checked radio that revealed nothing changes nothing that later diffs could see.
      if (radio && !revealedAny && dirty && fieldKey(dirty.field) === key) dirty = null;
      if (radio && !reloadable && dirty && fieldKey(dirty.field) === key) {
        // No reload here: the page keeps the last option's reveals, so later diffs must too.
        await settle(field);
        for (const field of (await snapshotPage(page)).fields) baseline.add(fieldKey(field));
        dirty = null;
      }
    }
    await restore(path);
  };

  await explore(snapshot.fields, byKey, new Set(snapshot.fields.map(fieldKey)), [], 1);
  await restore([]);
}
