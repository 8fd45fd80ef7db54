import type { Applier, ApplicationToSubmit, SubmitOutcome } from '@quarry/hosted-form-apply';

export type FakeApplier = Applier & {
  /** What each call was given, in order. */
  calls: ApplicationToSubmit[];
  /** The outcomes the next calls return, in order (then the last one again). */
  script: Array<SubmitOutcome | 'throw-before-submit' | 'throw-after-submit'>;
};

/**
 * A stand-in for the application engine (our own port): records what it was given, calls
 * `beforeSubmit` like the engine does right before the final click, and returns scripted outcomes.
 */
export function createFakeApplier(
  script: FakeApplier['script'] = [{ status: 'success', confirmation: { text: 'Thank you for applying' } }],
): FakeApplier {
  const calls: ApplicationToSubmit[] = [];
  const state = { script: [...script] };
  const run: Applier = async (application, hooks) => {
    calls.push(application);
    const next = fake.script.length > 1 ? fake.script.shift() : fake.script[0];
    if (next === undefined) throw new Error('the fake applier has no scripted outcome');
    if (next === 'throw-before-submit') throw new Error('the engine failed before the final step');
    await hooks.beforeSubmit();
    if (next === 'throw-after-submit') throw new Error('the engine failed after the final step');
    return next;
  };
  const fake: FakeApplier = Object.assign(run, { calls, script: state.script });
  return fake;
}
