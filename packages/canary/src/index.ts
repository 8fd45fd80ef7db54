export { getCanary, requestCanary, runCanary } from './canary.ts';
export type { EnqueueCanary } from './canary.ts';
