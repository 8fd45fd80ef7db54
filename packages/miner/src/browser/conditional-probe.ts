import type { Question } from '@quarry/contracts';
import type { Frame, Page } from 'playwright-core';
import { fieldKey, fieldsToQuestions, type FormSnapshot, type FrameSnapshot, type RawField } from './form-fields.ts';
import { callInFrame, frameOf, joinFrames, readFrame, settleAfterInput, snapshotPage } from './page-snapshot.ts';

/** Choosing one option of one control; a path of these rebuilds a state from a fresh page. */
type Choice = { field: RawField; optionIndex: number; optionLabel: string };

export type ProbeBudget = { choices: number; deadline: number; settleMs: number };

/** Past this many options a list is data (countries, years), not a branch: only its follow-up options are probed. */
const longListOptions = 25;
/** DOM quiet after a choice's own timers and requests are done: catches renders scheduled by other means (a message channel). */
const reactionQuietMs = 30;
const followUpOption = /\bother\b|please specify|not listed|self[- ]describe/i;

const probeable = (field: RawField) => (field.tag === 'select' && !field.multiple) || field.type === 'radio' || field.role === 'radio';

/** Native selects and radio groups are chosen inside the page; a custom role=radio gets a real click. */
const choiceInPage = ({ field, optionIndex, optionLabel }: Choice) => {
  const kind = field.tag === 'select' ? 'select' : field.type === 'radio' && field.name ? 'radio' : null;
  return kind ? { kind, selector: field.selector, name: field.name, optionIndex, optionLabel } : null;
};

async function clickCustomRadio(page: Page, choice: Choice): Promise<boolean> {
  return frameOf(page, choice.field.frameUrl)
    .locator('[role="radio"]')
    .filter({ hasText: choice.optionLabel })
    .first()
    .click({ timeout: 2_000 })
    .then(
      () => true,
      () => false,
    );
}

/** Chooses without reading (replaying a path after a reload). */
async function choose(page: Page, choice: Choice): Promise<boolean> {
  const inPage = choiceInPage(choice);
  if (!inPage) return clickCustomRadio(page, choice);
  return callInFrame<boolean>(frameOf(page, choice.field.frameUrl), `choose(${JSON.stringify(inPage)})`).catch(() => false);
}

/**
 * Chooses an option and reads the page once it has reacted, in one round trip for native
 * controls. Only the frame of the choice is read again: the other frames keep their last read (a
 * choice reveals questions in its own form), and a frame that appeared since is read in full.
 * Null when the option cannot be chosen.
 */
async function chooseAndRead(page: Page, choice: Choice, last: FormSnapshot, quietMs: number, maxMs: number): Promise<FormSnapshot | null> {
  const frame = frameOf(page, choice.field.frameUrl);
  const inPage = choiceInPage(choice);
  let read: FrameSnapshot | null;
  if (inPage) {
    read = await callInFrame<FrameSnapshot | null>(frame, `chooseAndRead(${JSON.stringify(inPage)}, ${quietMs}, ${maxMs})`).catch(
      () => null,
    );
  } else {
    if (!(await clickCustomRadio(page, choice))) return null;
    await settleAfterInput(frame, quietMs, maxMs);
    read = await readFrame(frame, false);
  }
  if (!read) return null;
  const reads = new Map<Frame, FrameSnapshot>();
  for (const current of page.frames()) {
    const frameRead = current === frame ? read : (last.byFrame.get(current) ?? (await readFrame(current, false)));
    if (frameRead) reads.set(current, frameRead);
  }
  return joinFrames(reads);
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
  // The page as last read: frames a choice did not touch are not read again.
  let lastRead = snapshot;
  const restore = async (path: Choice[]) => {
    if (!dirty) return;
    const last = dirty;
    dirty = null;
    if (last.field.tag === 'select') {
      // Putting back an option that revealed nothing has nothing to remove, so no settle. Controls
      // of the baseline it hid may come back late, but a diff only counts controls outside the
      // baseline, and the next choice settles anyway.
      const call = `restoreSelect(${JSON.stringify(last.field.selector)}, ${JSON.stringify(last.field.value)}, ${last.revealed}, ${reactionQuietMs}, ${budget.settleMs})`;
      if (await callInFrame<boolean>(frameOf(page, last.field.frameUrl), call).catch(() => false)) return;
    }
    // Without a reload (a wizard's later step) what cannot be put back is left as it is.
    if (!reloadable) return settle(last.field);
    await page.reload({ waitUntil: 'load' });
    for (const choice of path) await choose(page, choice);
    await settle(last.field);
    // A reload makes new documents (and new child frames): no earlier read of them holds.
    lastRead = await snapshotPage(page, { withText: false });
  };

  const explore = async (
    scope: RawField[],
    scopeQuestions: Map<string, Question>,
    baseline: Set<string>,
    path: Choice[],
    depth: number,
  ) => {
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
      // The first option of a radio group that revealed nothing: going back to it resets the group.
      let quietOption: Choice | null = null;
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
        const after = await chooseAndRead(page, choice, lastRead, reactionQuietMs, budget.settleMs);
        if (!after) continue;
        lastRead = after;
        dirty = { ...choice, revealed: false };
        const revealed = after.fields.filter((candidate) => !baseline.has(fieldKey(candidate)));
        if (revealed.length === 0) {
          quietOption ??= choice;
          continue;
        }
        dirty.revealed = true;
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
      const groupLeftRevealing = () => radio && dirty !== null && fieldKey(dirty.field) === key && dirty.revealed;
      if (groupLeftRevealing() && quietOption) {
        // A radio cannot be unchecked, but choosing the option that revealed nothing takes away
        // what the last one revealed: one choice instead of a reload and a replay of the path.
        const after = await chooseAndRead(page, quietOption, lastRead, reactionQuietMs, budget.settleMs);
        if (after) {
          lastRead = after;
          dirty = { ...quietOption, revealed: after.fields.some((candidate) => !baseline.has(fieldKey(candidate))) };
        }
      }
      // A checked radio that revealed nothing changes nothing that later diffs could see.
      if (radio && dirty && fieldKey(dirty.field) === key && !dirty.revealed) dirty = null;
      if (groupLeftRevealing() && !reloadable) {
        // No reload here: the page keeps the last option's reveals, so later diffs must too.
        await settle(field);
        lastRead = await snapshotPage(page, { withText: false });
        for (const field of lastRead.fields) baseline.add(fieldKey(field));
        dirty = null;
      }
    }
    await restore(path);
  };

  await explore(snapshot.fields, byKey, new Set(snapshot.fields.map(fieldKey)), [], 1);
  await restore([]);
}
