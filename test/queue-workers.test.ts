import { waitFor } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecruitmentStack, type RecruitmentStack } from './support/recruitment-stack.ts';

// The operators' queue view counts the processes taking each queue's jobs, and names them.
let stack: RecruitmentStack;

type QueueView = { name: string; workers: number; workerProcesses: string[] };

const queueView = async (name: string): Promise<QueueView | undefined> =>
  ((await (await stack.call('/v1/admin/queues')).json()) as QueueView[]).find((queue) => queue.name === name);

beforeAll(async () => {
  stack = await startRecruitmentStack('qworkers', {}, 2);
});
afterAll(async () => {
  await stack?.stop();
});

describe('workers per queue', () => {
  it('are the processes running, named as they log their worker id, and follow a process that stops', async () => {
    const ids = stack.workers.map((worker) => worker.workerId).sort();
    expect(ids).toHaveLength(2);
    expect(await queueView('mining.single')).toMatchObject({ workers: 2, workerProcesses: ids });
    expect(await queueView('mining.control')).toMatchObject({ workers: 2, workerProcesses: ids });
    // No process of this deployment takes mail.
    expect(await queueView('mail')).toMatchObject({ workers: 0, workerProcesses: [] });

    const [stopping, staying] = stack.workers;
    stopping?.child.kill('SIGTERM');
    await stopping?.exited;
    const after = await waitFor('the stopped process gone from the count', async () => {
      const view = await queueView('mining.single');
      return view?.workers === 1 ? view : undefined;
    });
    expect(after.workerProcesses).toEqual([staying?.workerId]);
  });
});
