import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createJobQueues, createRedis, queueFamilies, queueNames, type JobQueues } from '@quarry/jobs';
import { createMetrics } from '@quarry/observability';
import { createTestRedis, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

/**
 * The queue workers scale on their backlog (infra/k8s-keda: KEDA ScaledObjects on Quarry's
 * `quarry_queue_backlog` gauge), with the CPU autoscalers of infra/k8s as the fallback where KEDA is
 * absent. The manifests are rendered by `kubectl kustomize` as a cluster would receive them; the
 * gauge is read from a real Redis holding jobs in every queue a ScaledObject names, each batch's
 * queue among them.
 */
const run = promisify(execFile);
const render = async (folder: string) =>
  parseAllDocuments(
    (await run('kubectl', ['kustomize', new URL(`../${folder}`, import.meta.url).pathname], { maxBuffer: 16 * 1024 * 1024 })).stdout,
  )
    .map((document) => document.toJS() as { kind: string; metadata: { name: string }; spec?: Record<string, unknown> })
    .filter(Boolean);

type Trigger = { type: string; metadata: { query: string; threshold: string } };
type ScaledObject = { metadata: { name: string }; spec: { scaleTargetRef: { name: string }; triggers: Trigger[] } };

/** The queues a trigger's query reads: `queue="a"` or `queue=~"a|b"`. */
const queuesOf = (query: string) => {
  const match = /queue(=~?)"([^"]+)"/.exec(query);
  if (!match?.[2]) throw new Error(`no queue selector in ${query}`);
  return match[1] === '=~' ? match[2].split('|') : [match[2]];
};

let testRedis: TestRedis;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;

beforeAll(() => {
  testRedis = createTestRedis('queue-backlog');
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
});

afterAll(async () => {
  await queues?.close();
  redis?.disconnect();
  await testRedis?.cleanup();
});

describe('scaling the queue workers on their backlog', () => {
  it('infra/k8s keeps CPU autoscalers for every worker; infra/k8s-keda replaces them with ScaledObjects on the backlog of the queues each runs', async () => {
    const base = await render('infra/k8s');
    const withKeda = await render('infra/k8s-keda');
    const deployments = new Set(base.filter((manifest) => manifest.kind === 'Deployment').map((manifest) => manifest.metadata.name));
    const baseAutoscaled = base.filter((manifest) => manifest.kind === 'HorizontalPodAutoscaler').map((manifest) => manifest.metadata.name);
    const scaled = withKeda.filter((manifest) => manifest.kind === 'ScaledObject') as unknown as ScaledObject[];
    const workers = ['quarry-mining-worker', 'quarry-rates-worker', 'quarry-mail', 'quarry-applications-worker', 'quarry-bookings-worker'];
    expect(baseAutoscaled).toEqual(expect.arrayContaining(workers));
    expect(scaled.map((object) => object.spec.scaleTargetRef.name).sort()).toEqual([...workers].sort());
    for (const object of scaled) expect(deployments.has(object.spec.scaleTargetRef.name), object.metadata.name).toBe(true);
    // KEDA owns the worker's autoscaler: a CPU one left beside it would fight it.
    const remaining = withKeda.filter((manifest) => manifest.kind === 'HorizontalPodAutoscaler').map((manifest) => manifest.metadata.name);
    expect(remaining.filter((name) => workers.includes(name))).toEqual([]);
    const known = new Set<string>([...queueNames, ...queueFamilies]);
    for (const trigger of scaled.flatMap((object) => object.spec.triggers)) {
      expect(trigger.type).toBe('prometheus');
      for (const queue of queuesOf(trigger.metadata.query)) expect(known.has(queue), queue).toBe(true);
    }
  });

  it('the gauge each ScaledObject reads holds the jobs that want a worker, every batch queue counted, delayed and paused ones not', async () => {
    const scaled = (await render('infra/k8s-keda')).filter((manifest) => manifest.kind === 'ScaledObject') as unknown as ScaledObject[];
    const named = [...new Set(scaled.flatMap((object) => object.spec.triggers.flatMap((trigger) => queuesOf(trigger.metadata.query))))];
    // Jobs added straight to BullMQ (a count is all that is read): 3 + index in each single queue,
    // one delayed beside them; two running batches of 4 and 5 rows and a paused one of 7.
    const expected = new Map<string, number>();
    for (const [index, name] of named.entries()) {
      if (name === 'mining.batch') continue;
      const queue = queues.queue(name as (typeof queueNames)[number]);
      await queue.addBulk(Array.from({ length: 3 + index }, (_, row) => ({ name: 'backlog', data: { row } })));
      await queue.add('later', {}, { delay: 3_600_000 });
      expected.set(name, 3 + index);
    }
    for (const [key, rows] of [
      ['b1', 4],
      ['b2', 5],
      ['b3', 7],
    ] as const) {
      const batch = queues.familyQueue('mining.batch', key);
      await batch.addBulk(Array.from({ length: rows }, (_, row) => ({ name: 'row', data: { row } })));
      if (key === 'b3') await batch.pause();
    }
    expected.set('mining.batch', 4 + 5);
    const metrics = createMetrics({ collectQueueBacklog: () => queues.backlog({ 'mining.batch': ['b1', 'b2', 'b3'] }) });
    const gauge = await metrics.queueBacklog.get();
    const value = (queue: string) => gauge.values.find((sample) => sample.labels.queue === queue)?.value;
    for (const [queue, count] of expected) expect(value(queue), queue).toBe(count);
    // What each trigger's query adds up: the sum over its queues.
    for (const object of scaled) {
      for (const trigger of object.spec.triggers) {
        const sum = queuesOf(trigger.metadata.query).reduce((total, queue) => total + (value(queue) ?? 0), 0);
        expect(sum, trigger.metadata.query).toBe(
          queuesOf(trigger.metadata.query).reduce((total, queue) => total + (expected.get(queue) ?? 0), 0),
        );
        expect(sum, trigger.metadata.query).toBeGreaterThan(0);
      }
    }
  });
});
