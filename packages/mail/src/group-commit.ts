/**
 * Group commit: calls made while a commit runs wait and go into the next one together, so under
 * load many calls share one round trip (and one WAL flush), and a lone call waits for nothing but
 * its own commit. `commit` answers one output per input, in order. A group that fails is retried
 * one input at a time, so one input the database refuses cannot fail the others.
 */
export function groupCommit<In, Out>(
  commit: (inputs: In[]) => Promise<Out[]>,
  limits: { maxInputs: number; maxWeight?: number; weight?: (input: In) => number },
): (input: In) => Promise<Out> {
  type Waiting = { input: In; resolve: (output: Out) => void; reject: (error: unknown) => void };
  let waiting: Waiting[] = [];
  let committing = false;
  const weightOf = limits.weight ?? (() => 0);
  const maxWeight = limits.maxWeight ?? Number.POSITIVE_INFINITY;

  const commitGroup = async (group: Waiting[]): Promise<void> => {
    let outputs: Out[];
    try {
      outputs = await commit(group.map((entry) => entry.input));
    } catch (error) {
      if (group.length === 1) group[0]?.reject(error);
      else for (const entry of group) await commitGroup([entry]);
      return;
    }
    group.forEach((entry, index) => entry.resolve(outputs[index] as Out));
  };

  const nextGroup = (): Waiting[] => {
    let weight = 0;
    let take = 0;
    while (take < waiting.length && take < limits.maxInputs) {
      const next = weightOf((waiting[take] as Waiting).input);
      // The first input always goes, however heavy.
      if (take > 0 && weight + next > maxWeight) break;
      weight += next;
      take += 1;
    }
    const group = waiting.slice(0, take);
    waiting = waiting.slice(take);
    return group;
  };

  const commitWhileWaiting = async () => {
    committing = true;
    try {
      while (waiting.length > 0) await commitGroup(nextGroup());
    } finally {
      committing = false;
    }
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!committing) void commitWhileWaiting();
    });
}
