export { createFakeApplier } from './fake-applier.ts';
export type { FakeApplier } from './fake-applier.ts';
export * from './hosted-cases.ts';
