import { describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit.ts';

describe('groupCommit', () => {
  it('commits a lone call at once and the calls made meanwhile together', async () => {
    const groups: number[][] = [];
    const commit = groupCommit(
      async (inputs: number[]) => {
        groups.push(inputs);
        await new Promise((resolve) => setTimeout(resolve, 20));
        return inputs.map((input) => input * 10);
      },
      { maxInputs: 3 },
    );
    const first = commit(1);
    const rest = [2, 3, 4, 5, 6].map((input) => commit(input));
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50, 60]);
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('stops a group at the weight limit, but always takes its first input', async () => {
    const groups: number[][] = [];
    const commit = groupCommit(
      async (inputs: number[]) => {
        groups.push(inputs);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return inputs;
      },
      { maxInputs: 10, maxWeight: 10, weight: (input) => input },
    );
    await Promise.all([commit(1), commit(4), commit(5), commit(2), commit(20), commit(1)]);
    expect(groups).toEqual([[1], [4, 5], [2], [20], [1]]);
  });

  it('retries a failed group one input at a time, so only the refused input fails', async () => {
    const commit = groupCommit(
      async (inputs: string[]) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (inputs.includes('bad')) throw new Error('refused');
        return inputs.map((input) => input.toUpperCase());
      },
      { maxInputs: 10 },
    );
    const outcomes = await Promise.allSettled([commit('first'), commit('a'), commit('bad'), commit('b')]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message))).toEqual([
      'FIRST',
      'A',
      'refused',
      'B',
    ]);
    // And it keeps committing afterwards.
    expect(await commit('later')).toBe('LATER');
  });
});
