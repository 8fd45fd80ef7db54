import type { Answer, Question } from '@quarry/contracts';
import type { Page } from 'playwright-core';
import { syntheticAnswers } from '../synthetic-answers.ts';
import { fieldKey, fieldsToQuestions, type FormSnapshot, type RawField } from './form-fields.ts';
import { callInFrame, frameOf, settle, settleAfterInput, snapshotPage } from './page-snapshot.ts';

/** A wizard's button to the next step (never the final submit); the applier presses the same ones. */
export const nextButton = /^(next|continue|weiter|suivant|siguiente|save and continue|proceed)\b/i;

/** How the page script fills a control with a synthetic answer; null for what is never filled. */
function fillInPage(field: RawField, question: Question, value: unknown): { selector: string; kind: string; value: string } | null {
  // Files are never set: several ATSs upload a file the moment it is chosen.
  if (!field.selector || value === undefined || question.inputType === 'File') return null;
  if (field.tag === 'select') return { selector: field.selector, kind: 'select', value: String(Array.isArray(value) ? value[0] : value) };
  if (field.type === 'radio' || field.type === 'checkbox') return { selector: field.selector, kind: 'check', value: '' };
  return { selector: field.selector, kind: 'text', value: String(value) };
}

/**
 * Multi-step application forms: fill the current step with the synthetic answers, press Next,
 * read the controls that appear, and stop where only the final submit is left (never pressed).
 * Returns the later steps' questions and the answers used to reach them.
 */
export async function walkWizardSteps(
  page: Page,
  firstStep: { fields: RawField[]; questions: Map<string, Question> },
  options: {
    maxSteps: number;
    defaultLabel: string;
    deadline: number;
    /** Probes a later step's conditional questions (without reloading, which would lose the step). */
    probeStep?: (snapshot: FormSnapshot, questions: Map<string, Question>) => Promise<void>;
  },
): Promise<{ questions: Question[]; answers: Answer[]; loginWall: boolean }> {
  const seen = new Set(firstStep.fields.map(fieldKey));
  const found: Question[] = [];
  const used: Answer[] = [];
  let current = firstStep;
  const main = page.mainFrame();
  const nextCall = (action: 'hasButton' | 'pressButton') =>
    `${action}(${JSON.stringify(nextButton.source)}, ${JSON.stringify(nextButton.flags)})`;
  for (let step = 2; step <= options.maxSteps && Date.now() < options.deadline; step += 1) {
    if (!(await callInFrame<boolean>(main, nextCall('hasButton')).catch(() => false))) break;
    for (const field of current.fields) {
      const question = current.questions.get(fieldKey(field));
      if (!question) continue;
      const answer = syntheticAnswers([question])[0];
      const fill = answer && fillInPage(field, question, answer.value);
      if (!answer || !fill) continue;
      const filled = await callInFrame<boolean>(frameOf(page, field.frameUrl), `fill(${JSON.stringify(fill)})`).catch(() => false);
      if (filled && !used.some((entry) => entry.id === answer.id)) used.push(answer);
    }
    await callInFrame(main, nextCall('pressButton')).catch(() => {});
    // The next step usually renders at once, or once the timers and requests the click started
    // are done (a step fetched from the server). When nothing new appears, one longer wait (800 ms
    // of quiet) covers a step that arrives by other means before the walk concludes there is
    // none. That wait is rare: the last step has no Next button to press. A fixed pause instead
    // cost every step 300 ms and still missed steps slower than that.
    const readStep = async (wait: () => Promise<void>) => {
      await wait();
      const snapshot = await snapshotPage(page, { withText: false });
      return { snapshot, fresh: snapshot.fields.filter((field) => !seen.has(fieldKey(field))) };
    };
    let { snapshot, fresh } = await readStep(() => settleAfterInput(main, 30, 1_500));
    if (fresh.length === 0) ({ snapshot, fresh } = await readStep(() => settle(page, 800, 4_000)));
    if (snapshot.visiblePasswords > 0) return { questions: found, answers: used, loginWall: true };
    if (fresh.length === 0) break;
    for (const field of fresh) seen.add(fieldKey(field));
    const built = fieldsToQuestions(fresh, options.defaultLabel);
    // The whole step is the baseline of the diff; only this step's questions are probed.
    await options.probeStep?.(snapshot, built.byKey);
    found.push(...built.questions);
    current = { fields: fresh, questions: built.byKey };
  }
  return { questions: found, answers: used, loginWall: false };
}
