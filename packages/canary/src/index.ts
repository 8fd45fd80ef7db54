export { canaryJobHandler, getCanary, requestCanary } from './canary.ts';
export type { EnqueueCanary } from './canary.ts';
